#!/usr/bin/env python3
"""Supervised fine-tuning on seragen's `hf` export with TRL, assistant turns only.

    seragen export RUN_DIR --format hf
    pip install trl datasets transformers
    python configs/train/trl_sft.py --model Qwen/Qwen3-8B --data RUN_DIR/data/t2.hf.jsonl --out out/seragen-trl

Fits: model families whose chat template renders `tools`, assistant `tool_calls` and
`role: tool` turns (Qwen2.5, Qwen3, Llama 3.1+, Mistral with tool support). Assistant-only
loss needs the template's {% generation %} markers: TRL supplies training templates for the
families it knows (used when this TRL has them); otherwise pass --chat-template FILE with a
template that has the markers.

Each row is prepared right before templating, never stored back into Arrow: tool-call
`arguments` and tool `parameters` are JSON strings in the export (one column type, no other
tools' keys padded in as nulls) and are decoded here, and the keys a message does not have
(null in the export's one-schema layout) are dropped. `--prepare-only FILE` prints the
prepared rows as JSON lines and needs nothing but the standard library.
"""
import argparse
import json
import sys


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


def prepare_only(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                messages, tools = prepare_row(json.loads(line))
                print(json.dumps({"messages": messages, "tools": tools}, ensure_ascii=False))


def training_template(tokenizer, template_file):
    if template_file:
        with open(template_file, encoding="utf-8") as f:
            return f.read()
    try:  # TRL's templates with generation markers, where this TRL version has them
        from trl.chat_template_utils import get_training_chat_template

        return get_training_chat_template(tokenizer)
    except (ImportError, TypeError, ValueError):
        return None


def train(args):
    from datasets import load_dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    template = training_template(tokenizer, args.chat_template) or tokenizer.chat_template
    if "generation" not in (template or ""):
        sys.exit("the chat template has no {% generation %} markers: pass --chat-template FILE")

    def tokenize(row):
        messages, tools = prepare_row(row)
        encoded = tokenizer.apply_chat_template(
            messages, tools=tools or None, chat_template=template, tokenize=True,
            return_dict=True, return_assistant_tokens_mask=True)
        return {"input_ids": encoded["input_ids"], "assistant_masks": encoded["assistant_masks"]}

    data = load_dataset("json", data_files=args.data, split="train")
    data = data.map(tokenize, remove_columns=data.column_names)
    config = SFTConfig(output_dir=args.out, assistant_only_loss=True, max_length=args.max_length,
                       per_device_train_batch_size=1, gradient_accumulation_steps=8, num_train_epochs=3,
                       learning_rate=1e-5, lr_scheduler_type="cosine", warmup_ratio=0.1, bf16=True,
                       gradient_checkpointing=True, logging_steps=1, save_strategy="epoch")
    SFTTrainer(model=args.model, args=config, train_dataset=data, processing_class=tokenizer).train()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prepare-only", metavar="FILE", help="print the prepared rows of FILE and exit")
    parser.add_argument("--model")
    parser.add_argument("--data", nargs="+", help="exported hf files (t1.hf.jsonl, t2.hf.jsonl)")
    parser.add_argument("--out", default="out/seragen-trl")
    parser.add_argument("--chat-template", help="a template file with {% generation %} markers")
    parser.add_argument("--max-length", type=int, default=32768)
    args = parser.parse_args()
    if args.prepare_only:
        prepare_only(args.prepare_only)
    elif args.model and args.data:
        train(args)
    else:
        parser.error("give --model and --data, or --prepare-only FILE")


if __name__ == "__main__":
    main()
