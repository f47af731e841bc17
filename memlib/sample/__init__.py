"""`memlib sample`: a realistic, deterministic corpus and recall history (see generate)."""

from memlib.sample.generate import DEFAULT_SIZE, build_sample, generate, iter_generate

__all__ = ["DEFAULT_SIZE", "build_sample", "generate", "iter_generate"]
