#!/usr/bin/env python3
"""SERA's post-processing rules, restated in our own words, applied to rows that
carry the teacher's wire turns (seragen's openai export: each call's arguments
string as the server sent it, the reasoning in reasoning_content), and compared
with seragen's sera export of the same trajectory.

The rules (SERA's public post-processing of SWE-agent trajectories):
- an assistant turn is its text with the reasoning as a leading think block,
  a blank line, then each call as <tool_call>\\n + json.dumps({"name", "arguments":
  json.loads(arguments string)}) + \\n</tool_call> (Python's defaults: ", ",
  ": ", non-ASCII as \\uXXXX; json.loads keeps a repeated key at its first
  place with its last value);
- a tool result is a user turn <tool_response>\\n...\\n</tool_response>;
- any message holding "<think>" must hold exactly one think block, which is
  rewritten as <think>\\n + stripped body + \\n</think>; otherwise the row is
  dropped;
- keep_only_think: an assistant turn splits into (think block)?(text)(tool
  calls to the end); with an empty or missing think block, the stripped text
  becomes the think block; the text beside a non-empty think block is dropped;
  the turn is think block, blank line, calls;
- every message gets "train": true on assistant turns, false elsewhere.

Not compared: the system turn (seragen writes its own system prompt and the
student's tool framing) and the final untrained user turn holding the submit
call's observation, which the wire rows do not carry.

Usage: sera_rules.py WIRE.jsonl SERA.jsonl; exit 0 when every row is equal.
"""
import json
import re
import sys

THINK = re.compile(r"<think>(.*?)</think>", re.S)
TURN = re.compile(r"^(<think>.*?</think>)?(.*?)(<tool_call>.*?</tool_call>)$", re.S)


def one_think_block(text):
    blocks = THINK.findall(text)
    if len(blocks) != 1:
        return None
    block = "\n".join(["<think>", blocks[0].strip(), "</think>"])
    return THINK.sub(lambda _: block, text)


def assistant_text(message):
    calls = []
    for call in message["tool_calls"]:
        fn = call["function"]
        obj = {"name": fn["name"], "arguments": json.loads(fn["arguments"])}
        calls.append("\n".join(["<tool_call>", json.dumps(obj), "</tool_call>"]))
    text = message.get("content") or ""
    reasoning = message.get("reasoning_content")
    if reasoning is not None:
        text = "<think>" + reasoning + "</think>" + text
    return text + "\n\n" + "\n".join(calls)


def keep_only_think(text):
    parts = TURN.match(text.strip())
    if parts is None:
        return None
    think, commentary, calls = parts.groups()
    if think is None or THINK.findall(think)[0].strip() == "":
        think = "\n".join(["<think>", commentary.strip(), "</think>"])
    return "\n\n".join([think, calls])


def sera_messages(wire_row):
    out = []
    for m in wire_row["messages"]:
        if m["role"] == "assistant":
            out.append({"role": "assistant", "content": assistant_text(m)})
        elif m["role"] == "tool":
            out.append({"role": "user", "content": "\n".join(["<tool_response>", m["content"], "</tool_response>"])})
        else:
            out.append({"role": m["role"], "content": m["content"]})
    for m in out:
        if "<think>" in m["content"]:
            m["content"] = one_think_block(m["content"])
            if m["content"] is None:
                return None
    for m in out:
        if m["role"] == "assistant":
            m["content"] = keep_only_think(m["content"])
            if m["content"] is None:
                return None
        m["train"] = m["role"] == "assistant"
    return out


def main(wire_path, sera_path):
    with open(wire_path, encoding="utf-8") as f:
        wire = [json.loads(line) for line in f if line.strip()]
    with open(sera_path, encoding="utf-8") as f:
        sera = [json.loads(line) for line in f if line.strip()]
    if len(wire) != len(sera):
        print(f"{len(wire)} wire rows, {len(sera)} sera rows")
        return 1
    bad = 0
    for n, (w, s) in enumerate(zip(wire, sera)):
        expected = sera_messages(w)
        got = s["messages"]
        if expected is None:
            print(f"row {n}: SERA's rules drop it, the sera export wrote it")
            bad += 1
            continue
        last = got[-1]
        if len(got) != len(expected) + 1 or last["role"] != "user" or last["train"] is not False:
            print(f"row {n}: {len(got)} sera messages, expected {len(expected)} and the final observation")
            bad += 1
            continue
        for i in range(1, len(expected)):  # the system turn is seragen's own
            want = json.dumps(expected[i])
            have = json.dumps(got[i])  # key order as written
            if want != have:
                print(f"row {n} message {i}:\n  SERA  {want}\n  sera  {have}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
