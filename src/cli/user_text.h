// Text for users at the cli boundary: Status code names ("FAILED_PRECONDITION: ")
// are for programs and logs, not for people.
#pragma once

#include <string>
#include <string_view>

namespace seragen::cli {

// `text` without the "CODE: " prefixes Status::ToString puts in front of
// messages (a StatusCodeName other than OK followed by ": ", at the start or
// after a character that is not a letter, digit or '_').
std::string WithoutStatusCodeNames(std::string_view text);

}  // namespace seragen::cli
