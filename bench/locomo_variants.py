"""Search variants on LoCoMo's tuning conversations (0-4), fold by fold: a variant is worth
taking only if it raises R@10 on every fold (each conversation held out in turn), against
memlib's default. Conversations 5-9 are never loaded here.

The store is built once through memlib (bench/locomo.py's loader, maintained); each
question's full-text list comes from memlib (`fts_candidates`), the vector lists are exact
cosine over the conversation's vectors (what memlib's exact path computes below 20,000 rows
in scope), and fusion is memlib's own (`search.fusion`). Variants change one thing:

    base          memlib's default: the turn's vector embeds the turn and the turn before it (read
                  as one text; with the default `-late` model the context's tokens weigh half,
                  with --model minilm all weigh the same),
                  candidates from the period the question names gain the best score (dated 1.0),
                  turns holding the kind of thing it asks for gain 0.15 of it (answer 0.15),
                  turns by the speaker it names gain 0.15 of it (speaker 0.15)
    own           the turn's vector embeds its own words only (what plain MiniLM cosine does)
    bare          the turn's vector embeds the same words without the speakers' names that open
                  its lines ("Caroline: ..."): every turn of a speaker carries the name, so a
                  question naming one pulls toward all of that speaker's turns
    mean          both vectors; a turn scores the mean of the two cosines
    max           both vectors; a turn scores the better of the two cosines
    late          the turn and its context read as one text, its vector the mean of the states
                  of [CLS] and its own words' tokens only ("late chunking")
    pool=W        the same, the context's tokens (and the final [SEP]) weighing W in the mean
                  (0.5: what the `-late` models do; 1: the whole text's mean)
    late mean     late and base vectors; a turn scores the mean of the two cosines
    late sum      the sum of the late and base vectors (one vector)
    blend=W       a turn's own vector plus W x the own vector of the turn before it (normalised)
    rrf           reciprocal-rank fusion instead of convex
    norm=N        convex fusion with each list's scores normalised otherwise than min-max over
                  its candidates: "tm" from the score's theoretical lowest (cosine -1, BM25 0)
                  to the list's best, "max" from 0 to the best, "dbsf" from 3 standard
                  deviations below the list's mean to 3 above (clipped); a memory missing from
                  a list scores 0 there
    alpha=A       convex weight of the vector list
    neighbours=W  the share of an adjacent turn's score a turn gains
    candidates=N  candidates per list
    prf=B         the query vector moved B x toward the mean of the first fused top 3 (Rocchio)
    dated=W       the share of the best score a candidate from the named period gains
    any year=no   a month or a day named without a year ("in June") names no period
    speaker=W     when the question names exactly one of the candidates' speakers (by first
                  name), that speaker's turns gain W x the best score
    unname[=L]    when the question names one speaker, the name (and its 's) is left out of the
                  text both lists are asked with (L: "fts" or "vector" only; "mix": the query
                  vector is the mean of the question's with and without the name): a speaker
                  rarely names themself, so the name pulls toward the other speaker's turns
    mmr=L         the final list re-ranked by maximal marginal relevance over its first 30:
                  L x the fused score (scaled to [0, 1]) - (1 - L) x the highest cosine to a
                  turn already taken (a multi-hop question needs several different turns)
    session=W     each candidate gains W x the best fused score among the candidates of its
                  session (its iteration), as a retrieved passage gains its document's score:
                  a question's evidence tends to lie in one session ("session-sum=W": the sum
                  of the session's candidates' scores, scaled so the best session's is the
                  best score)
    fts=own       the full-text list from an index of each turn's own words, without the words
                  it replies to (the vector keeps them): a reply then no longer matches the
                  question on its context's words alone
    answer=W      when the question asks for a time, a number or a place ("When did ...", "How
                  many ...", "Where ..."), the turns whose own words hold one gain W x the best
                  score (memlib's default 0.15, search/answers.py)
    expand=N      full text asked again with the question and up to N words that at least two
                  of its first 3 full-text hits share (pseudo-relevance feedback; stop words,
                  the question's own words and words under 4 letters left out)

    .venv/bin/python bench/locomo_variants.py [--model DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from locomo import KS, TUNING, load  # noqa: E402

from memlib import MemoryStore, Project, Scope  # noqa: E402
from memlib.search.answers import asked_for, holds  # noqa: E402
from memlib.search.dates import named_period  # noqa: E402
from memlib.search.fusion import convex, rrf, with_boost, with_neighbours  # noqa: E402
from memlib.search.speakers import named_speaker  # noqa: E402
from memlib.search.search import SearchConfig, fts_candidates, own_words  # noqa: E402

DEFAULT = SearchConfig()
VARIANTS = {
    "base": {},
    "own": {"vectors": "own"},
    "bare": {"vectors": "bare"},
    "mean": {"vectors": "mean"},
    "max": {"vectors": "max"},
    **{f"blend={w}": {"vectors": f"blend={w}"} for w in (0.3, 0.5, 0.7, 1.0)},
    "rrf": {"fusion": "rrf"},
    **{f"norm={n}": {"norm": n} for n in ("tm", "max", "dbsf")},
    **{f"norm={n}, alpha={a}": {"norm": n, "alpha": a} for n in ("tm", "max", "dbsf") for a in (0.3, 0.5)},
    "alpha=0.3": {"alpha": 0.3}, "alpha=0.5": {"alpha": 0.5},
    "neighbours=0.5": {"neighbours": 0.5}, "neighbours=1.0": {"neighbours": 1.0},
    "candidates=25": {"candidates": 25}, "candidates=100": {"candidates": 100},
    "prf=0.5": {"prf": 0.5},
    "own, neighbours=1.0": {"vectors": "own", "neighbours": 1.0},
    "dated=0 (no period, the default before 2026-11-23)": {"dated": 0.0},
    "dated=0.2": {"dated": 0.2}, "dated=0.4": {"dated": 0.4}, "dated=0.6": {"dated": 0.6},
    "speaker=0 (the default before 2026-11-24)": {"speaker": 0.0},
    "speaker=0.05": {"speaker": 0.05}, "speaker=0.1": {"speaker": 0.1}, "speaker=0.2": {"speaker": 0.2},
    "speaker=0.3": {"speaker": 0.3},
    "own, alpha=0.5": {"vectors": "own", "alpha": 0.5},
    **{f"unname=vector, speaker={w}": {"unname": "vector", "speaker": w} for w in (0.05, 0.1, 0.2, 0.3)},
    "unname=mix": {"unname": "mix"},
    **{f"unname=mix, speaker={w}": {"unname": "mix", "speaker": w} for w in (0.1, 0.2)},
    "unname": {"unname": "both"}, "unname=fts": {"unname": "fts"}, "unname=vector": {"unname": "vector"},
    "mmr=0.7": {"mmr": 0.7}, "mmr=0.85": {"mmr": 0.85}, "mmr=0.95": {"mmr": 0.95},
    **{f"session={w}": {"session": w} for w in (0.1, 0.2, 0.3, 0.5)},
    **{f"session-sum={w}": {"session": w, "session_sum": True} for w in (0.1, 0.2, 0.3, 0.5)},
    "fts=own": {"fts_index": "own"},
    "fts=own, alpha=0.3": {"fts_index": "own", "alpha": 0.3}, "fts=own, alpha=0.5": {"fts_index": "own", "alpha": 0.5},
    "answer=0 (the default before 2026-11-25)": {"answer": 0.0},
    "any year=no (a month or day named without a year ignored, as before 2026-11-25)": {"any_year": False},
    "any year=no, answer=0": {"any_year": False, "answer": 0.0},
    **{f"answer={w}": {"answer": w} for w in (0.05, 0.1, 0.2, 0.3)},
    "expand=3": {"expand": 3}, "expand=5": {"expand": 5}, "expand=8": {"expand": 8},
    "ctx=burst": {"vectors": "burst_context"},
    "late": {"vectors": "late"}, "late mean": {"vectors": "late_mean"},
    "late sum": {"vectors": "late_sum"},
    "pool=0.25": {"vectors": "pool=0.25"}, "pool=0.5": {"vectors": "pool=0.5"},
    "said": {"vectors": "said"}, "said own": {"vectors": "said_own"},
    "said, ctx=burst": {"vectors": "said_burst"},
    "said, alpha=0.5": {"vectors": "said", "alpha": 0.5},
    **{f"burst={w}": {"burst": w} for w in (0.3, 0.5, 0.8, 1.0)},
    **{f"ctx=burst, burst={w}": {"vectors": "burst_context", "burst": w} for w in (0.5, 0.8)},
}
EXPANSIONS = (3, 5, 8)
WORD = re.compile(r"[a-z0-9']+")


def unnamed(question: str, speakers) -> str:
    """The question without the one speaker it names (as bench/locomo_variants' unname)."""
    name = named_speaker(question, speakers)
    if name is None:
        return question
    first = re.escape(name.split()[0])
    return " ".join(re.sub(rf"(?<!\w){first}(?:'s)?(?!\w)", " ", question).split())


def diversified(ranked: list, conv: dict, weight: float, depth: int = 30) -> list:
    """Maximal marginal relevance over the first `depth` of `ranked`, the rest after them."""
    head, rest = ranked[:depth], ranked[depth:]
    if len(head) < 2:
        return ranked
    position = conv.setdefault("position", {i: j for j, i in enumerate(conv["ids"])})
    vectors = conv["context"][[position[i] for i, _, _ in head]]
    similar = vectors @ vectors.T
    scores = np.array([s for _, s, _ in head])
    relevance = (scores - scores.min()) / ((scores.max() - scores.min()) or 1.0)
    taken, left = [], list(range(len(head)))
    while left:
        best = max(left, key=lambda j: weight * relevance[j]
                   - (1 - weight) * (max(similar[j, t] for t in taken) if taken else 0.0))
        taken.append(best)
        left.remove(best)
    return [head[j] for j in taken] + rest


def with_session(ranked: list, session_of: dict, weight: float, summed: bool) -> list:
    """Each candidate plus `weight` x its session's score (see session=W above), ranked again."""
    if not ranked:
        return ranked
    by_session = collections.defaultdict(list)
    for i, s, _ in ranked:
        by_session[session_of[i]].append(s)
    score = {k: (sum(v) if summed else max(v)) for k, v in by_session.items()}
    scale = ranked[0][1] / max(score.values()) if summed else 1.0
    out = [(i, s + weight * scale * score[session_of[i]], src) for i, s, src in ranked]
    return sorted(out, key=lambda e: (-e[1], e[0]))


def feedback_words(question: str, texts: list[str], n: int) -> list[str]:
    """Up to n words at least two of `texts` share, most shared first, not in the question."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    asked = set(WORD.findall(question.lower()))
    shared = collections.Counter(w for text in texts for w in set(WORD.findall(text.lower()))
                                 if len(w) > 3 and w not in asked and w not in ENGLISH_STOP_WORDS)
    return [w for w, count in shared.most_common(n) if count >= 2]


def blended(conv: dict, weight: float) -> np.ndarray:
    """Each turn's own vector plus `weight` x the own vector of the turn it follows."""
    key = f"blend={weight}"
    if key not in conv:
        position = {i: j for j, i in enumerate(conv["ids"])}
        mixed = conv["own"].copy()
        for previous, turn in conv["links"]:
            mixed[position[turn]] += weight * conv["own"][position[previous]]
        conv[key] = unit(mixed)
    return conv[key]


def normaliser(how: str):
    """convex()'s normalisation of a list's scores into [0, 1] by `how` (see norm=N above)."""
    def normalise(name: str, scores: list[float]) -> list[float]:
        scores = np.array(scores)
        if how == "dbsf":
            low, high = scores.mean() - 3 * scores.std(), scores.mean() + 3 * scores.std()
        else:
            low = (-1.0 if name == "vector" else 0.0) if how == "tm" else 0.0
            high = scores.max()
        span = (high - low) or 1.0
        return np.clip((scores - low) / span, 0.0, 1.0).tolist()
    return normalise


def bare(row: dict) -> str:
    """A turn's embedded text without the "Name: " each line of it opens with."""
    text = row["content"] + (f"\n{row['context']}" if row["context"] else "")
    return "\n".join(re.sub(r"^[^:\n]{1,40}:\s*", "", line) for line in text.split("\n"))


def said_text(content: str, verb: str = "said") -> str:
    """'Caroline: words' as 'Caroline said, "words"' (a line without a name as it is)."""
    name, sep, words = content.partition(": ")
    if not sep or len(name) > 40 or "\n" in name:
        return content
    return f'{name} {verb}, "{words}"'


def late_pooled(embedder, own: list[str], context: list[str | None], weights=(0.0,)) -> dict[float, np.ndarray]:
    """Each turn's own words and context read as one text (as the store embeds it), the
    token states pooled as memlib's `-late` models pool them (embeddings._kept, _pooled), with
    weight `w` on the context's tokens instead of CONTEXT_WEIGHT (w 0: the own words only,
    "late chunking"; w 1: the whole text's mean), per w."""
    from memlib.embeddings import _kept, _pooled

    model = embedder._load()
    texts = [o + (f"\n{c}" if c else "") for o, c in zip(own, context)]
    keep = _kept(model.tokenizer(texts, truncation=True, max_length=model.max_seq_length,
                                 return_offsets_mapping=True)["offset_mapping"], texts, [len(o) for o in own])
    states = model.encode(texts, output_value="token_embeddings", batch_size=32, show_progress_bar=False)
    return {w: unit(np.asarray([_pooled(s.float().numpy(), n, w) for s, n in zip(states, keep)], np.float32))
            for w in weights}


def unit(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def own_words_fts(turns: list, rows: dict, questions: list[str]) -> list[list]:
    """Each question's full-text list over one conversation's turns indexed by their own words:
    the turns linked as in the store, given no context, in a store of their own."""
    from memlib.embeddings import HashEmbedder

    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(tmp, embedder=HashEmbedder())
        project = Project(id=turns[0].project_id, name="own words")
        store.add([project, *[t.model_copy(update={"previous_id": rows[t.id]["previous_id"], "context": None})
                              for t in turns]])
        store.maintain()
        assert not any(store.lookup([t.id for t in turns], ["context"])[t.id]["context"] for t in turns)
        where = Scope(project_id=project.id, kinds=("conversation",)).where(store.clock.now())
        return [fts_candidates(store, q, 100, where) for q in questions]


def prepare(data: list[dict], embedder, burst: bool = False, which=TUNING) -> list[dict]:
    """Per tuning conversation (`which` of `data`): ids, dia ids, both vectors, links,
    questions with their vectors and full-text lists."""
    convs = []
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore.open(tmp, embedder=embedder)
        loaded = [load(data[i], burst=burst) for i in which]
        for project, turns, _ in loaded:
            store.add([project, *turns])
        store.maintain()
        for project, turns, questions in loaded:
            ids = [t.id for t in turns]
            rows = store.lookup(ids, ["embedding", "previous_id", "content", "context", "created_at", "iteration_id"])
            scope = Scope(project_id=project.id, kinds=("conversation",))
            where = scope.where(store.clock.now())
            fts = [fts_candidates(store, q["question"], 100, where) for q in questions]
            expanded = {n: [] for n in EXPANSIONS}
            for q, hits in zip(questions, fts):
                texts = [rows[i]["content"] for i, _ in hits[:3] if i in rows]
                for n in EXPANSIONS:
                    words = feedback_words(q["question"], texts, n)
                    expanded[n].append(fts_candidates(store, " ".join([q["question"], *words]), 100, where)
                                       if words else hits)
            own_fts = own_words_fts(turns, rows, [q["question"] for q in questions])
            speakers = {t.speaker for t in turns}
            plain = [unnamed(q["question"], speakers) for q in questions]
            burst_of, replies_to, burst, last_other, previous_speaker = {}, {}, 0, None, None
            for t in turns:  # a burst: one speaker's messages in a row
                if t.speaker != previous_speaker:
                    burst += 1
                    last_other = rows[ids[ids.index(t.id) - 1]]["content"] if previous_speaker else None
                burst_of[t.id], replies_to[t.id], previous_speaker = burst, last_other, t.speaker
            said = {i: said_text(rows[i]["content"]) for i in ids}
            convs.append({
                "said": unit(store.embedder.embed(
                    [said[i] + (f" in reply to {said_text(rows[i]['context'], 'saying')}" if rows[i]["context"] else "")
                     for i in ids])),
                "said_own": unit(store.embedder.embed([said[i] for i in ids])),
                "said_burst": unit(store.embedder.embed(
                    [said[i] + (f" in reply to {said_text(replies_to[i], 'saying')}" if replies_to[i] else "")
                     for i in ids])),
                "burst_of": burst_of,
                "burst_context": unit(store.embedder.embed(
                    [rows[i]["content"] + (f"\n{replies_to[i]}" if replies_to[i] else "") for i in ids])),
                "ids": ids, "dia": {t.id: t.metadata["dia_id"] for t in turns},
                "context": unit(np.asarray([rows[i]["embedding"] for i in ids], np.float32)),
                "own": unit(store.embedder.embed([rows[i]["content"] for i in ids])),
                **{("late" if w == 0 else f"pool={w}"): v for w, v in late_pooled(
                    store.embedder, [rows[i]["content"] for i in ids], [rows[i]["context"] for i in ids],
                    (0.0, 0.25, 0.5)).items()},
                "bare": unit(store.embedder.embed([bare(rows[i]) for i in ids])),
                "links": [(rows[i]["previous_id"], i) for i in ids if rows[i]["previous_id"]],
                "speaker": {t.id: t.speaker for t in turns},
                "session": {i: rows[i]["iteration_id"] for i in ids},
                "when": {i: rows[i]["created_at"] for i in ids},
                "words": own_words(store, ids),  # what memlib's answer boost reads
                "questions": questions,
                "qv": store.embedder.embed([q["question"] for q in questions]),
                "fts": fts, "expanded": expanded, "own_fts": own_fts,
                "unnamed_qv": store.embedder.embed(plain),
                "unnamed_fts": [fts_candidates(store, text, 100, where) for text in plain],
            })
    return convs


def recall(conv: dict, vectors: str = "context", fusion: str = DEFAULT.fusion, alpha: float = DEFAULT.alpha,
           neighbours: float = DEFAULT.neighbours, candidates: int = DEFAULT.candidates,
           prf: float = 0.0, dated: float = DEFAULT.dated, speaker: float = DEFAULT.speaker,
           expand: int = 0, unname: str = "", mmr: float = 0.0, norm: str = "", session: float = 0.0,
           session_sum: bool = False, fts_index: str = "", answer: float = DEFAULT.answer,
           any_year: bool = True, burst: float = 0.0, vector_only: bool = False) -> list[float]:
    """R@10 of every question of one conversation under one variant (`vector_only`: of its
    vector list alone, as vector mode ranks before it moves the turns that say nothing)."""
    ids = conv["ids"]

    def vector_list(q: np.ndarray) -> list[tuple[str, float]]:
        if vectors == "mean":
            sims = (conv["own"] @ q + conv["context"] @ q) / 2
        elif vectors == "late_sum":
            sims = unit(conv["late"] + conv["context"]) @ q
        elif vectors == "late_mean":
            sims = (conv["late"] @ q + conv["context"] @ q) / 2
        elif vectors == "max":
            sims = np.maximum(conv["own"] @ q, conv["context"] @ q)
        elif vectors.startswith("blend="):
            sims = blended(conv, float(vectors.split("=")[1])) @ q
        else:  # "context" (memlib's), "own", "bare"
            sims = conv[vectors] @ q
        top = np.argsort(-sims, kind="stable")[:candidates]
        return [(ids[j], float(sims[j])) for j in top]

    def fuse(lists):
        every = 2 * candidates
        if norm:
            return convex(lists, every, {"vector": alpha, "fts": 1.0 - alpha}, normaliser(norm))
        return rrf(lists, every, DEFAULT.rrf_k) if fusion == "rrf" else \
            convex(lists, every, {"vector": alpha, "fts": 1.0 - alpha})

    out = []
    vectors_asked = conv["unnamed_qv"] if unname in ("both", "vector") else \
        unit(conv["unnamed_qv"] + conv["qv"]) if unname == "mix" else conv["qv"]
    texts_asked = conv["unnamed_fts"] if unname in ("both", "fts") else \
        conv["expanded"][expand] if expand else conv["own_fts"] if fts_index == "own" else conv["fts"]
    for q, qv, fts in zip(conv["questions"], vectors_asked, texts_asked):
        lists = {"vector": vector_list(qv), "fts": fts[:candidates]}
        if vector_only:
            found = {conv["dia"][i] for i, _ in lists["vector"][:10]}
            out.append(len(q["evidence"] & found) / len(q["evidence"]))
            continue
        if prf:
            position = {i: j for j, i in enumerate(ids)}
            top = [position[i] for i, _, _ in fuse(lists)[:3]]
            moved = qv + prf * conv["context"][top].mean(axis=0)
            lists["vector"] = vector_list(moved / np.linalg.norm(moved))
        ranked = fuse(lists)
        if neighbours:
            mine = {i for i, _, _ in ranked}
            links = [(a, b) for a, b in conv["links"] if a in mine or b in mine]
            ranked = with_neighbours(ranked, links, neighbours)
        if dated and (period := named_period(q["question"])) is not None and (any_year or not period.every_year):
            ranked = with_boost(ranked, {i for i, _, _ in ranked if conv["when"][i] in period}, dated, "period")
        if answer and (kinds := asked_for(q["question"])):
            ranked = with_boost(ranked, {i for i, _, _ in ranked if holds(conv["words"][i], kinds)}, answer, "answer")
        if speaker:
            name = named_speaker(q["question"], {conv["speaker"][i] for i, _, _ in ranked})
            ranked = with_boost(ranked, {i for i, _, _ in ranked if conv["speaker"][i] == name}, speaker, "speaker")
        if session:
            ranked = with_session(ranked, conv["session"], session, session_sum)
        if burst:
            ranked = with_session(ranked, conv["burst_of"], burst, False)
        if mmr:
            ranked = diversified(ranked, conv, mmr)
        found = {conv["dia"][i] for i, _, _ in ranked[:10]}
        out.append(len(q["evidence"] & found) / len(q["evidence"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "bench"
                                              / "locomo" / "locomo10.json"))
    parser.add_argument("--model", help="an embedder's name (memlib.embeddings.NAMED) or a sentence-transformers "
                                        "model directory (default: a new store's default)")
    parser.add_argument("--variants", help="comma-separated names of the variants to measure (base always)")
    parser.add_argument("--burst", action="store_true",
                        help="every turn sent as several messages, as in real chats (bench/locomo.py --burst)")
    parser.add_argument("--chats", action="store_true",
                        help="bench/chats' development chats instead of LoCoMo (a fold is a chat)")
    parser.add_argument("--vector", action="store_true", help="R@10 of the vector list alone, not of hybrid")
    args = parser.parse_args()
    wanted = None if args.variants is None else {"base", *re.split(r",(?! )", args.variants)}
    embedder = None
    if args.model:
        from memlib.embeddings import named

        embedder = named(args.model)
    if args.chats:
        import chats

        which = range(len(chats.DEV))
        convs = prepare([chats.parse(chats.HERE / f"{name}.txt") for name in chats.DEV], embedder, args.burst, which)
        title = f"bench/chats' development chats ({', '.join(chats.DEV)}), fold by fold"
    else:
        which = TUNING
        convs = prepare(json.loads(Path(args.data).read_text()), embedder, burst=args.burst)
        title = f"conversations {TUNING[0]}-{TUNING[-1]} only, fold by fold (5-9 not loaded)"
    print(f"{'vector list' if args.vector else 'hybrid'} R@10 on {title}; k = {KS[1]}\n")
    print("| variant | " + " | ".join(f"fold {i}" for i in which) + " | all | better on every fold |")
    print("|---|" + "---|" * len(which) + "---|---|")
    base = None
    for name, change in VARIANTS.items():
        if wanted is not None and name not in wanted:
            continue
        per = [recall(c, **change, vector_only=args.vector) for c in convs]
        folds = [100 * sum(p) / len(p) for p in per]
        every = 100 * sum(sum(p) for p in per) / sum(len(p) for p in per)
        verdict = "" if base is None else ("yes" if all(f > b for f, b in zip(folds, base)) else "no")
        base = base or folds
        print(f"| {name} | " + " | ".join(f"{f:.1f}" for f in folds) + f" | {every:.1f} | {verdict} |", flush=True)


if __name__ == "__main__":
    main()
