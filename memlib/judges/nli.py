"""The `nli:<dir or model id>` judge: a sentence-transformers CrossEncoder trained for natural
language inference (labels contradiction, entailment, neutral) reads each older memory and
the newer one as premise and hypothesis; a pair whose contradiction probability is at least
`threshold` is flagged. A newer memory that reports a change ("moved to", "as of March",
the rules reader's cue) is recorded as an update instead: an NLI model reads "we moved from
X to Y" as contradicting "we use X". Pairs further apart than `min_cosine` are not read.

No NLI model installs from a package registry: download one where a model hub is reachable
(for example `cross-encoder/nli-deberta-v3-xsmall`, about 90 MB) and name its directory."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from memlib.consensus import statements
from memlib.errors import InvalidInput, StoreError, first_line
from memlib.extras import need
from memlib.judges import Option, within_groups

THRESHOLD = 0.8  # precision first: a flag a person acts on
MIN_COSINE = 0.5  # the rules reader's gate (conflicts.CLOSE): unrelated memories are not read
BATCH = 32


class NliJudge:
    def __init__(self, model: str, threshold: float = THRESHOLD, min_cosine: float = MIN_COSINE):
        self.model_name, self.threshold, self.min_cosine = model, float(threshold), float(min_cosine)
        self.spec = f"nli:{model}"
        self._model, self._label, self._lock = None, None, threading.Lock()

    def settings(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "min_cosine": self.min_cosine}

    def load(self):
        """The model, loaded once (a missing one in one line naming it)."""
        with self._lock:
            if self._model is None:
                need("judges", "sentence_transformers", "the nli judge")
                from sentence_transformers import CrossEncoder

                try:
                    model = CrossEncoder(self.model_name, device="cpu")
                except Exception as exc:
                    raise StoreError(f"judge {self.spec!r}: cannot load the NLI model ({first_line(exc)})") from None
                labels = {str(v).lower(): int(k) for k, v in model.config.id2label.items()}
                found = [i for name, i in labels.items() if name.startswith("contradict")]
                if not found:
                    raise StoreError(f"judge {self.spec!r}: the model has no contradiction label "
                                     f"(its labels: {', '.join(sorted(labels))})")
                self._model, self._label = model, found[0]
        return self._model

    def contradiction(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """The probability that each (older, newer) pair contradicts."""
        if not pairs:
            return np.zeros(0)
        model = self.load()
        logits = np.asarray(model.predict(pairs, batch_size=BATCH, show_progress_bar=False,
                                          apply_softmax=False, convert_to_numpy=True), dtype=np.float64)
        logits = logits - logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds[:, self._label] / odds.sum(axis=1)

    def read(self, items: list[tuple[str, list[Option]]]) -> list[list[tuple[Option, str]]]:
        asked = [(n, o) for n, (text, options) in enumerate(items) for o in options if o.cosine >= self.min_cosine]
        chances = self.contradiction([(o.text, items[n][0]) for n, o in asked])
        out: list[list[tuple[Option, str]]] = [[] for _ in items]
        for (n, option), chance in zip(asked, chances.tolist()):
            if chance >= self.threshold:
                out[n].append((option, "update" if statements.read(items[n][0]).change else "contradiction"))
        return out

    def find_many(self, groups, lexicon=None):
        return within_groups(self, groups)


def make(argument: str, threshold: float = THRESHOLD, min_cosine: float = MIN_COSINE, **rest: Any) -> NliJudge:
    if not argument:
        raise InvalidInput("the judge 'nli' needs a model: nli:DIR (a local CrossEncoder) or nli:MODEL-ID")
    if rest:
        raise InvalidInput(f"the judge 'nli' has no setting {sorted(rest)[0]!r} (threshold, min_cosine)")
    try:
        threshold, min_cosine = float(threshold), float(min_cosine)
    except (TypeError, ValueError):
        raise InvalidInput("the nli judge's threshold and min_cosine are numbers") from None
    if not 0 < threshold <= 1:
        raise InvalidInput(f"the nli judge's threshold is a probability above 0, not {threshold}")
    model = str(Path(argument).expanduser().resolve()) if Path(argument).expanduser().is_dir() else argument
    return NliJudge(model, threshold, min_cosine)
