// SERA's changed-line rule for soft verification (verify.rule: sera).
//
// Reproduces, on the raw bytes of a patch, what SERA's scorer does with the
// patch text it has as a Python str (docs/VERIFY.md has the full statement):
//   * bytes are decoded as UTF-8 with errors="backslashreplace": every byte
//     that is not part of a well-formed sequence becomes the four characters
//     "\xNN" (lower-case hex), as SWE-agent reads its model.patch;
//   * the text is split like Python's str.splitlines(): at "\r\n", and at each
//     of \n \r \v \f \x1c \x1d \x1e U+0085 U+2028 U+2029 (a raw 0x85 byte is
//     invalid UTF-8, hence "\x85" text, not a boundary);
//   * a line that begins with "diff", "---", "+++" or "@@" is skipped,
//     wherever it is (so the removed line "-- x", shown as "--- x", is not
//     counted, and neither is "diffuse" or "@@@");
//   * of the other lines, those beginning with '+' or '-' count, sign kept,
//     unless the rest of the line is empty or Python-whitespace only
//     (str.isspace: \t..\r, \x1c..\x1f, space, U+0085, U+00A0, U+1680,
//     U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
// No hunk structure is used: context, "\ No newline" and mail lines are
// ignored because they do not begin with a sign; a signed line anywhere
// (commit message bullets included) counts.
//
// Pure functions; thread-safe; never fail.
#pragma once

#include <string>
#include <string_view>

#include "seragen/verify/patch_lines.h"

namespace seragen::verify {

// The sign-kept changed lines of `patch_bytes` under SERA's rule. Each line
// is stored as its decoded text (valid UTF-8; invalid bytes as "\xNN").
ChangedLines ParseSeraLines(std::string_view patch_bytes);

// True when SERA would treat the patch as no submission at all: its decoded
// text is empty or Python-whitespace only (SWE-agent keeps a submission only
// when text.strip() != "").
bool SeraBlankPatch(std::string_view patch_bytes);

// Python's str.strip() on UTF-8 text: leading and trailing str.isspace()
// characters removed (the set above). Bytes that are not UTF-8 are kept.
std::string_view PythonStrip(std::string_view text);

// `bytes` decoded as Python's bytes.decode("utf-8", "backslashreplace") and
// re-encoded as UTF-8. Exposed for tests.
std::string SeraDecode(std::string_view bytes);

}  // namespace seragen::verify
