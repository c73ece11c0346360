#!/usr/bin/env python3
"""Supervised fine-tuning on seragen's `hf` export with TRL: the loss covers the assistant turns only.

    seragen export RUN_DIR --format hf --max-record-tokens 24576    # (--think wrap for Qwen2.5)
    pip install trl datasets transformers
    python configs/train/trl_sft.py --model Qwen/Qwen3-8B \\
        --data RUN_DIR/data/t1.hf.jsonl RUN_DIR/data/t2.hf.jsonl --out out/seragen-trl

Families (what TRL's own code does with these rows):
  Qwen3    export as is (reasoning kept). TRL swaps in its Qwen3 training template, whose
           {% generation %} blocks cover each assistant turn's think block and call.
  Qwen2.5  export with --think wrap (its template ignores reasoning_content); TRL's Qwen2.5
           training template covers each assistant turn.
  Llama 3.1, Mistral: TRL has no training template for them; this script stops and names the
           fix (--chat-template FILE: the model's template with {% generation %} ...
           {% endgeneration %} around the assistant's output). Llama 3.1's template drops the
           text of a tool-call turn, so export with --think drop for it.
Any other template: it must carry the markers (TRL's test, has_generation_markers) or come
with --chat-template.

How the rows reach TRL: this script reads the JSONL files itself (no Arrow table of the
export, so T1 and T2 load together whatever their metadata), prepares each row (tool-call
`arguments` and tool `parameters` JSON strings decoded, null keys dropped), renders and
tokenises it with the training template and `return_assistant_tokens_mask`, and hands TRL a
tokenised dataset: `input_ids` and `assistant_masks`. TRL turns the masks into labels itself
(every release with `assistant_masks` support); `assistant_only_loss` stays False, as TRL
refuses it for a dataset that is not conversational. Rows longer than --max-length tokens
are left out and counted (TRL would cut their ending, the submit call included).

`--prepare-only [FILE ...]` (or with --data) prints the prepared rows as JSON lines and needs
nothing but the standard library.
"""
import argparse
import json
import math
import re
import sys

# TRL's rule for a template that marks assistant output: a `generation` block tag, with or
# without the whitespace-trim dashes. Used when TRL's own function cannot be imported.
_GENERATION_TAG = re.compile(r"\{%-?\s*generation\s*-?%\}")

MARKERS_FIX = (
    "pass --chat-template FILE: your model's chat template with {% generation %} ... {% endgeneration %} "
    "around everything the assistant writes in a turn (reasoning, text, tool calls and the end-of-turn token)")


def has_generation_markers(template):
    """True when `template` has {% generation %} blocks, by TRL's own test when TRL is installed."""
    try:
        from trl.chat_template_utils import has_generation_markers as trl_test
    except ImportError:
        return bool(template) and _GENERATION_TAG.search(template) is not None
    return bool(template) and trl_test(template)


def prepare_message(message):
    """One exported message as chat templates expect it: no null keys, arguments decoded."""
    out = {k: v for k, v in message.items() if v is not None and k != "train"}
    calls = out.get("tool_calls")
    if calls:
        decoded = []
        for call in calls:
            function = dict(call["function"])
            if isinstance(function.get("arguments"), str):
                function["arguments"] = json.loads(function["arguments"])
            decoded.append({**call, "function": function})
        out["tool_calls"] = decoded
    return out


def prepare_tools(tools):
    """The tools column with each `parameters` JSON string decoded."""
    prepared = []
    for tool in tools or []:
        function = dict(tool["function"])
        if isinstance(function.get("parameters"), str):
            function["parameters"] = json.loads(function["parameters"])
        prepared.append({**tool, "function": function})
    return prepared


def prepare_row(row):
    """(messages, tools) of one exported row, ready for apply_chat_template."""
    return [prepare_message(m) for m in row["messages"]], prepare_tools(row.get("tools"))


def read_rows(paths):
    """Every row of the given JSONL files, in order."""
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def prepare_only(paths):
    for row in read_rows(paths):
        messages, tools = prepare_row(row)
        print(json.dumps({"messages": messages, "tools": tools}, ensure_ascii=False))


def training_template(tokenizer, template_file):
    """The template whose {% generation %} blocks mark the trained tokens; exits naming the fix."""
    if template_file:
        with open(template_file, encoding="utf-8") as f:
            template = f.read()
        if not has_generation_markers(template):
            sys.exit(f"{template_file} has no {{% generation %}} markers: {MARKERS_FIX}")
        return template
    if has_generation_markers(tokenizer.chat_template):
        return tokenizer.chat_template
    try:  # TRL's training templates (Qwen2.5, Qwen3, Llama 3, ...), matched on the tokenizer's template
        from trl.chat_template_utils import get_training_chat_template

        template = get_training_chat_template(tokenizer)
    except (ImportError, TypeError, ValueError):
        template = None
    if not has_generation_markers(template):
        sys.exit("the model's chat template has no {% generation %} markers and TRL has no training "
                 f"template for it (Llama 3.1 and Mistral have none): {MARKERS_FIX}")
    return template


def masked_rows(rows, tokenizer, template, max_length):
    """([{input_ids, assistant_masks}], rows left out for length); exits when a row has no trained token."""
    out, too_long = [], 0
    for index, row in enumerate(rows):
        messages, tools = prepare_row(row)
        encoded = tokenizer.apply_chat_template(
            messages, tools=tools or None, chat_template=template, tokenize=True,
            return_dict=True, return_assistant_tokens_mask=True)
        ids, mask = list(encoded["input_ids"]), list(encoded["assistant_masks"])
        if 1 not in mask:
            sys.exit(f"row {index + 1}: the chat template marks no assistant token; {MARKERS_FIX}")
        if max_length and len(ids) > max_length:
            too_long += 1
            continue
        out.append({"input_ids": ids, "assistant_masks": mask})
    return out, too_long


def sft_config_kwargs(args, n_rows):
    """SFTConfig's arguments: a tokenised dataset, so no assistant_only_loss and no truncation."""
    batch, accumulation, epochs = 1, 8, 3
    steps = math.ceil(n_rows / (batch * accumulation)) * epochs
    return {
        "output_dir": args.out,
        "assistant_only_loss": False,  # the masks are in the dataset; TRL makes the labels from them
        "max_length": None,  # rows over --max-length were left out above, none is cut
        "per_device_train_batch_size": batch,
        "gradient_accumulation_steps": accumulation,
        "num_train_epochs": epochs,
        "learning_rate": 1e-5,
        "lr_scheduler_type": "cosine",
        "warmup_steps": max(1, math.ceil(0.1 * steps)),  # a tenth of the steps (one device)
        "bf16": True,
        "gradient_checkpointing": True,
        "logging_steps": 1,
        "save_strategy": "epoch",
    }


def train(args):
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    template = training_template(tokenizer, args.chat_template)
    records, too_long = masked_rows(read_rows(args.data), tokenizer, template, args.max_length)
    print(f"{len(records)} row(s) to train on; {too_long} left out as longer than {args.max_length} tokens",
          file=sys.stderr)
    if not records:
        sys.exit("no row to train on")
    config = SFTConfig(**sft_config_kwargs(args, len(records)))
    SFTTrainer(model=args.model, args=config, train_dataset=Dataset.from_list(records),
               processing_class=tokenizer).train()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare-only", nargs="*", metavar="FILE",
                        help="print the prepared rows of FILE... (or of --data) and exit")
    parser.add_argument("--model")
    parser.add_argument("--data", nargs="+", help="exported hf files (t1.hf.jsonl t2.hf.jsonl)")
    parser.add_argument("--out", default="out/seragen-trl")
    parser.add_argument("--chat-template", help="a template file with {% generation %} markers")
    parser.add_argument("--max-length", type=int, default=32768,
                        help="leave out rows longer than this many tokens (0: keep all)")
    args = parser.parse_args()
    if args.prepare_only is not None:
        paths = args.prepare_only + (args.data or [])
        if not paths:
            parser.error("--prepare-only needs files (or --data)")
        prepare_only(paths)
    elif args.model and args.data:
        train(args)
    else:
        parser.error("give --model and --data, or --prepare-only FILE...")


if __name__ == "__main__":
    main()
