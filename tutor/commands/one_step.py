"""The child process of the one-training-step demonstration (see tutor/core/onestep.py).

Started as `python -m tutor.commands.one_step`; it imports torch, loads the shipped model,
takes one optimizer step on one sentence and prints one JSON line: the loss before and
after, and which rows of the input table and of the output layer changed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tutor.commands.one_step")
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--ids", type=int, nargs="+", required=True)
    parser.add_argument("--eot", type=int, required=True)
    parser.add_argument("--optimizer", choices=("sgd", "adam"), required=True)
    parser.add_argument("--lr", type=float, required=True)
    args = parser.parse_args(argv)
    from tutor.core.live import past_the_session_ceiling

    past_the_session_ceiling()
    import torch
    from safetensors.torch import load_file

    from tutor.core.train import TinyLM, TrainConfig

    config = json.loads((args.model / "config.json").read_text(encoding="utf-8"))
    cfg = TrainConfig(
        hidden_size=config["hidden_size"], context=config["context"], mlp_ratio=config["mlp_ratio"]
    )
    vocab = config["vocab_size"]
    torch.manual_seed(0)
    model = TinyLM(vocab, cfg)
    model.load_state_dict(load_file(str(args.model / "model.safetensors")))
    # the sentence as training reads it: after an end-of-text, each token from the six before
    stream = torch.tensor([args.eot] * cfg.context + list(args.ids) + [args.eot])
    targets = torch.arange(cfg.context, len(stream))
    windows = stream[targets[:, None] + torch.arange(-cfg.context, 0)[None, :]]

    def loss() -> torch.Tensor:
        return torch.nn.functional.cross_entropy(model(windows), stream[targets])

    table = model.model.embed_tokens.weight
    head = model.lm_head.weight
    before_table, before_head = table.detach().clone(), head.detach().clone()
    opt = (
        torch.optim.SGD(model.parameters(), lr=args.lr)
        if args.optimizer == "sgd"
        else torch.optim.Adam(model.parameters(), lr=args.lr)  # no weight decay: only gradients
    )
    first = loss()
    first.backward()
    opt.step()
    with torch.no_grad():
        after = loss()
        moved = (table - before_table).abs().amax(1)
        head_moved = (head - before_head).abs().amax(1)
    changed = torch.nonzero(moved).flatten().tolist()
    still = moved.clone()
    still[changed] = 0.0
    result = {
        "loss_before": round(float(first.detach()), 4),
        "loss_after": round(float(after), 4),
        "read_ids": sorted(set(windows.flatten().tolist())),
        "changed_ids": changed,
        "changed_by": [round(float(moved[i]), 6) for i in changed],
        "others_max": float(still.max()),
        "head_changed": int((head_moved > 0).sum()),
        "vocab_size": vocab,
    }
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
