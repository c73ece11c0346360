#!/usr/bin/env python3
"""configs/train/trl_sft.py against TRL's rules, on exported hf rows (no TRL on the build machine).

    python3 trl_recipe_test.py [--family qwen3|qwen25] HF.jsonl...
        qwen3 (default): a Qwen3-shaped training template, reasoning in a think block;
        qwen25: a Qwen2.5-shaped one, which renders no reasoning_content (rows exported with
        --think wrap carry it in the text).

What each check encodes, read from TRL's and transformers' source:
- SFTTrainer raises when `assistant_only_loss` is set and the first row is not conversational
  (a `messages`/`prompt`/`completion`/`chosen`/`rejected` column holding role/content dicts);
  a row with `input_ids` is taken as tokenised, and its `assistant_masks` become the labels
  (-100 where 0); `padding_free` without packing needs max_length None.
- TRL's generation-marker test is a `{% generation %}` block tag (dashes allowed), not the
  word "generation" (every template names add_generation_prompt).
- apply_chat_template(return_assistant_tokens_mask=True) marks the tokens rendered inside
  {% generation %} blocks (here one character = one token).
- SFTConfig takes TrainingArguments' keys; transformers 5 deprecates warmup_ratio.
Every assistant turn of every row must be trained on exactly its think block, text and call
(name and arguments) and its end-of-turn token, and nothing else. Exit status 0 = pass.
"""
import importlib.util
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from types import SimpleNamespace

from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "..", "configs", "train", "trl_sft.py")
START, END = "\x02", "\x03"  # where a generation block opens and closes in the rendered text
failures = []


def fail(where, what):
    failures.append(f"{where}: {what}")


def load_script():
    spec = importlib.util.spec_from_file_location("trl_sft", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class GenerationBlocks(Extension):
    """{% generation %}…{% endgeneration %}: the body rendered between two marker characters."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_mark"), [], [], body).set_lineno(lineno)

    def _mark(self, caller):
        return START + caller() + END


def template_json(value, indent=None):
    """transformers' tojson: no HTML escaping, non-ASCII kept, keys in their order."""
    return json.dumps(value, ensure_ascii=False, indent=indent)


class CharTokenizer:
    """A tokenizer whose tokens are characters, rendering chat templates as transformers does."""

    def __init__(self, chat_template):
        self.chat_template = chat_template
        self.env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                                 extensions=[GenerationBlocks, loopcontrols])
        self.env.filters["tojson"] = template_json

    def apply_chat_template(self, messages, tools=None, chat_template=None, tokenize=True, return_dict=True,
                            return_assistant_tokens_mask=False, add_generation_prompt=False):
        text = self.env.from_string(chat_template or self.chat_template).render(
            messages=messages, tools=tools, add_generation_prompt=add_generation_prompt)
        ids, mask, inside = [], [], 0
        for ch in text:
            if ch in (START, END):
                inside = 1 if ch == START else 0
                continue
            ids.append(ord(ch))
            mask.append(inside)
        out = {"input_ids": ids}
        if return_assistant_tokens_mask:
            out["assistant_masks"] = mask
        return out


def read_template(name):
    with open(os.path.join(HERE, "..", "templates", name), encoding="utf-8") as f:
        return f.read()


def trained_spans(ids, mask):
    """The texts of the runs of trained tokens, in order."""
    spans, current = [], None
    for token, bit in zip(ids, mask):
        if bit:
            current = (current or "") + chr(token)
        elif current is not None:
            spans.append(current)
            current = None
    return spans + ([current] if current is not None else [])


# The training template of each family and whether it renders a think block.
FAMILIES = {"qwen3": ("chatml_reasoning_training.jinja", True), "qwen25": ("chatml_tools_training.jinja", False)}
family = "qwen3"


def expected_turn(message):
    """One assistant turn as the family's training template must train it, from the exported row."""
    reasoning = (message.get("reasoning_content") or "").strip("\n")
    text = (message.get("content") or "").lstrip("\n")
    if FAMILIES[family][1]:
        out = "<think>\n" + reasoning + "\n</think>\n\n" + text
    elif reasoning:
        out = "reasoning_content (not rendered by this family: export with --think wrap) " + text
    else:
        out = message.get("content") or ""
    for i, call in enumerate(message.get("tool_calls") or []):
        args = json.loads(call["function"]["arguments"])
        out += ("\n" if text or i else "") + "<tool_call>\n" + json.dumps(
            {"name": call["function"]["name"], "arguments": args}, ensure_ascii=False) + "\n</tool_call>"
    return out + "<|im_end|>"


def check_masks(script, rows):
    """Every assistant turn trained exactly; nothing else."""
    tokenizer = CharTokenizer(read_template(FAMILIES[family][0]))
    records, too_long = script.masked_rows(rows, tokenizer, script.training_template(tokenizer, None), 0)
    if too_long or len(records) != len(rows):
        return fail("masks", f"{len(records)} records from {len(rows)} rows")
    for i, (row, record) in enumerate(zip(rows, records)):
        want = [expected_turn(m) for m in row["messages"] if m["role"] == "assistant"]
        got = trained_spans(record["input_ids"], record["assistant_masks"])
        if len(got) != len(want):
            fail(f"row {i + 1}", f"{len(got)} trained spans for {len(want)} assistant turns")
        for k, (g, w) in enumerate(zip(got, want)):
            if g != w:
                fail(f"row {i + 1} turn {k}", f"trained {g[:80]!r}... instead of {w[:80]!r}...")


def is_conversational(example):
    """TRL's test: a known column holding a list of role/content messages."""
    for key in ("prompt", "chosen", "rejected", "completion", "messages"):
        value = example.get(key)
        if isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0] \
                and "content" in value[0]:
            return True
    return False


# TrainingArguments/SFTConfig keys the recipe may use, and the ones transformers 5 / TRL deprecate.
KNOWN_KEYS = {
    "output_dir", "assistant_only_loss", "max_length", "per_device_train_batch_size", "gradient_accumulation_steps",
    "num_train_epochs", "learning_rate", "lr_scheduler_type", "warmup_steps", "bf16", "gradient_checkpointing",
    "logging_steps", "save_strategy", "packing", "padding_free", "completion_only_loss", "truncation_mode",
    "weight_decay", "seed",
}
DEPRECATED_KEYS = {"warmup_ratio", "max_seq_length", "evaluation_strategy", "dataset_text_field"}


def check_trainer_arguments(script, rows):
    """The config and the dataset's first row as SFTTrainer.__init__ and _prepare_dataset check them."""
    tokenizer = CharTokenizer(read_template(FAMILIES[family][0]))
    records, _ = script.masked_rows(rows, tokenizer, tokenizer.chat_template, 0)
    config = script.sft_config_kwargs(SimpleNamespace(out="out"), len(records))
    sample = records[0]
    for key in config:
        if key in DEPRECATED_KEYS or key not in KNOWN_KEYS:
            fail("config", f"{key} is not a current SFTConfig key")
    if config.get("assistant_only_loss") and not is_conversational(sample):
        fail("config", "assistant_only_loss=True with a dataset that is not conversational: SFTTrainer raises")
    if config.get("padding_free") and not config.get("packing") and config.get("max_length") is not None:
        fail("config", "padding_free without packing needs max_length None")
    if "input_ids" not in sample or "assistant_masks" not in sample:
        fail("dataset", "rows are not tokenised with assistant_masks: TRL would template them again")
    if config.get("max_length") is not None and any(len(r["input_ids"]) > config["max_length"] for r in records):
        fail("config", "TRL would cut the ending of a row (its submit call)")


def check_guard(script):
    """TRL's marker test, and the stop with the fix when no training template exists."""
    header = read_template("header_json_calls.jinja")
    if script.has_generation_markers(header):
        fail("guard", "a template without {% generation %} blocks passes the marker test")
    for variant in ("{% generation %}", "{%- generation -%}", "{%-generation%}"):
        if not script.has_generation_markers("a" + variant + "b{% endgeneration %}"):
            fail("guard", f"{variant} is not recognised")
    try:
        script.training_template(CharTokenizer(header), None)
        fail("guard", "a template without markers was accepted")
    except SystemExit as stop:
        if "--chat-template" not in str(stop.code):
            fail("guard", f"the stop does not name the fix: {stop.code}")


def check_length(script, rows):
    tokenizer = CharTokenizer(read_template(FAMILIES[family][0]))
    shortest = min(len(tokenizer.apply_chat_template(*script.prepare_row(r))["input_ids"]) for r in rows)
    records, too_long = script.masked_rows(rows, tokenizer, tokenizer.chat_template, shortest)
    if too_long != len(rows) - len(records) or too_long == 0 or not records:
        fail("length", f"{too_long} counted as too long, {len(records)} kept of {len(rows)}")


def check_prepare_only(paths, rows):
    """--prepare-only over T1 and T2 together: every row of both files, arguments decoded."""
    run = subprocess.run([sys.executable, SCRIPT, "--prepare-only", "--data", *paths], capture_output=True,
                         text=True)
    if run.returncode != 0:
        return fail("prepare-only", run.stderr.strip())
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    if len(lines) != len(rows):
        fail("prepare-only", f"{len(lines)} rows printed for {len(rows)}")
    for line in lines:
        for m in line["messages"]:
            for call in m.get("tool_calls") or []:
                if not isinstance(call["function"]["arguments"], dict):
                    fail("prepare-only", "arguments left as a string")


def self_check(script, rows):
    """The checks can fail: a wrong template trains the wrong span; TRL's raise is seen."""
    bad = read_template(FAMILIES[family][0]).replace("{%- generation %}", "").replace(
        "{%- endgeneration %}", "").replace("{{- '<|im_end|>' }}", "{% generation %}{{- '<|im_end|>' }}{% endgeneration %}")
    tokenizer = CharTokenizer(bad)
    records, _ = script.masked_rows(rows[:1], tokenizer, bad, 0)
    want = [expected_turn(m) for m in rows[0]["messages"] if m["role"] == "assistant"]
    if trained_spans(records[0]["input_ids"], records[0]["assistant_masks"]) == want:
        fail("self-check", "a template training only the end token was not caught")
    if not is_conversational({"messages": [{"role": "user", "content": "x"}]}) or is_conversational(records[0]):
        fail("self-check", "TRL's conversational test is wrong")


def main(argv):
    global family
    if argv[:1] == ["--family"]:
        family, argv = argv[1], argv[2:]
    paths = argv
    script = load_script()
    rows = script.read_rows(paths)
    if not rows:
        fail("input", "no rows")
    else:
        with redirect_stdout(io.StringIO()):
            self_check(script, rows)
            check_guard(script)
            check_masks(script, rows)
            check_trainer_arguments(script, rows)
            check_length(script, rows)
        check_prepare_only(paths, rows)
    for f in failures[:50]:
        print("FAIL", f, file=sys.stderr)
    if not failures:
        print(f"ok: {len(rows)} row(s): every assistant turn trained exactly, SFTTrainer's checks pass (TRL, {family})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
