"""steptp from Python: LEIR tensor programs, Step-TP strategies, verification and a reward.

Every function runs steptp's C++ core in-process (``steptp._core``, the same operations and
typed errors as ``steptp serve``) and releases the GIL while it works, so a thread pool
verifies in parallel. Programs are LEIR text: declaration lines, then the body::

    import steptp
    prog = "input A f64[4,8]\\noutput C f64[4,8]\\nB^{4}_{tx=0}L^{8}_{a=0}[C^{f64,g}_{tx,a}=A^{f64,g}_{tx,a}*2;];"
    for site in steptp.sites(prog):
        print(site.step)
    r = steptp.reward(prog, model_text)   # format_ok, legal, equivalent, speedup, reward

Errors are exceptions: :class:`BadInputError` (the input is wrong: it does not parse, is
ill-formed, is over a limit), :class:`DoesNotApplyError` (a strategy step is not legal here),
:class:`InternalError` (a bug in steptp). Each carries the typed diagnostic: ``code``,
``message`` and ``location`` (file, line, column) where the error points into a text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _core
from .dataset import ArchiveRecord, ChatRecord, read_archive, read_chat

__all__ = [
    "ApplyResult", "ArchiveRecord", "BadInputError", "BenchResult", "ChatRecord", "CheckResult",
    "Declaration", "DoesNotApplyError", "InternalError", "Location", "Program", "RewardResult",
    "Site", "StepTPError", "StrategyInfo", "Tensor", "VerifyResult", "apply", "bench", "check",
    "fmt", "lower", "parse", "read_archive", "read_chat", "reward", "sites", "strategies",
    "verify",
]
__version__ = "0.1.0"


# ---- errors ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Location:
    """Where an error points into a text (1-based line and column)."""

    file: str
    line: int
    column: int


class StepTPError(Exception):
    """Base of steptp's typed errors.

    Attributes: ``kind`` ("bad_input", "does_not_apply", "bug"), ``code`` (e.g.
    "parse_error", "ill_formed", "loop_unrolling.too_long"), ``message`` (a sentence to act
    on), ``location`` (a :class:`Location` or None), ``rendered`` (file:line:col, the line and a
    caret), ``status`` (the HTTP status ``steptp serve`` gives it).
    """

    kind = "bad_input"

    def __init__(self, code: str, message: str, location: Optional[Location] = None,
                 rendered: str = "", status: int = 400) -> None:
        super().__init__(rendered or f"{code}: {message}")
        self.code = code
        self.message = message
        self.location = location
        self.rendered = rendered or f"{code}: {message}"
        self.status = status


class BadInputError(StepTPError, ValueError):
    """The input is wrong: unreadable, ill-formed, over a limit."""

    kind = "bad_input"


class DoesNotApplyError(StepTPError):
    """A strategy step is not legal on this program (``code`` is the strategy's Infeasible code)."""

    kind = "does_not_apply"


class InternalError(StepTPError, RuntimeError):
    """A bug in steptp itself; please report it."""

    kind = "bug"


_ERRORS = {"bad_input": BadInputError, "does_not_apply": DoesNotApplyError, "bug": InternalError}

# Budgets of one verification run (interpreter statement executions, tensor bytes).
WORK_BUDGET = 4_000_000_000
MEMORY_BUDGET_BYTES = 8 << 30


def _call(operation: str, **request: Any) -> Dict[str, Any]:
    body = {k: v for k, v in request.items() if v is not None}
    status, answer = _core.call(operation, json.dumps(body), WORK_BUDGET, MEMORY_BUDGET_BYTES)
    result = json.loads(answer)
    if status != 200:
        e = result["error"]
        loc = e.get("location")
        location = Location(loc["file"], loc["line"], loc["column"]) if loc else None
        raise _ERRORS.get(e["kind"], InternalError)(e["code"], e["message"], location,
                                                    e.get("rendered", ""), status)
    return result


# ---- programs -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """A declared tensor: ``role`` is input, param, const or output."""

    name: str
    role: str
    dtype: str
    shape: Tuple[int, ...]


@dataclass(frozen=True)
class Program:
    """A parsed program: its canonical text, its body alone and its declarations."""

    text: str
    body: str
    declarations: Tuple[Declaration, ...]

    def __str__(self) -> str:
        return self.text


def _program(j: Mapping[str, Any]) -> Program:
    decls = tuple(Declaration(d["name"], d["role"], d["dtype"], tuple(d["shape"]))
                  for d in j["declarations"])
    return Program(j["program"], j["body"], decls)


def _text(program: Union[str, Program]) -> str:
    return program.text if isinstance(program, Program) else program


def parse(program: str) -> Program:
    """Parses a program file's text (``#`` comments, declarations, body).

    Raises :class:`BadInputError` with code "parse_error" and the location of the problem.
    """
    return _program(_call("parse", program=program))


def fmt(program: Union[str, Program]) -> str:
    """The canonical text of a program (what ``steptp fmt`` writes)."""
    return _call("fmt", program=_text(program))["program"]


@dataclass(frozen=True)
class Tensor:
    """A tensor of the program's table: declared, or an intermediate with its inferred shape."""

    name: str
    role: str
    dtype: str
    scope: str
    shape: Tuple[int, ...]


@dataclass(frozen=True)
class CheckResult:
    """A well-formed program's tensor table, block count and static cost estimate."""

    blocks: int
    tensors: Tuple[Tensor, ...]
    estimated_cost: Optional[float]


def check(program: Union[str, Program], cuda: bool = False) -> CheckResult:
    """Well-formedness (with ``cuda``, also CUDA's binding extent limits) and the tensor table.

    Raises :class:`BadInputError` ("parse_error", "ill_formed", ...) when it is not well-formed.
    """
    j = _call("check", program=_text(program), cuda=cuda)
    tensors = tuple(Tensor(t["name"], t["role"], t["dtype"], t["scope"], tuple(t["shape"]))
                    for t in j["tensors"])
    return CheckResult(j["blocks"], tensors, j.get("estimated_cost"))


# ---- strategies -----------------------------------------------------------------------------


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    category: str
    difficulty: str
    summary: str


def strategies() -> List[StrategyInfo]:
    """The 44 strategies in registry order."""
    return [StrategyInfo(**s) for s in _call("strategies")["strategies"]]


@dataclass(frozen=True)
class Site:
    """One feasible step: ``step`` is replayable text, e.g. "loop_unrolling(block=0, loop=a)"."""

    strategy: str
    step: str
    difficulty: str
    explain: Optional[str] = None


def sites(program: Union[str, Program], strategy: Optional[str] = None,
          explain: bool = False) -> List[Site]:
    """Every feasible step of a program (strategy order, then site order).

    ``strategy`` limits it to one strategy; ``explain`` adds each step's effect in words.
    """
    j = _call("sites", program=_text(program), strategy=strategy, explain=explain)
    return [Site(s["strategy"], s["step"], s["difficulty"], s.get("explain")) for s in j["sites"]]


@dataclass(frozen=True)
class ApplyResult:
    """The program a step gives, with the step and what it did."""

    program: Program
    step: str
    explain: str


def apply(program: Union[str, Program], step: Union[str, Site]) -> ApplyResult:
    """Applies one step. Raises :class:`DoesNotApplyError` when it is not legal here."""
    step_text = step.step if isinstance(step, Site) else step
    j = _call("apply", program=_text(program), step=step_text)
    return ApplyResult(_program(j), j["step"], j["explain"])


# ---- verification, code, time ---------------------------------------------------------------


@dataclass(frozen=True)
class VerifyResult:
    """``status`` is "equivalent" or one typed failure (mismatch, race, out_of_bounds, ...)."""

    status: str
    equivalent: bool
    message: str
    engine: str
    seeds_run: int
    max_abs_error: Union[float, str]
    max_rel_error: Union[float, str]
    mismatch: Optional[Dict[str, Any]] = None

    def __bool__(self) -> bool:
        return self.equivalent


def verify(original: Union[str, Program], candidate: Union[str, Program], seeds: int = 3,
           seed: int = 0, engine: str = "interpreter") -> VerifyResult:
    """Is ``candidate`` the same computation as ``original``?

    ``candidate`` may be a bare body that uses the original's declarations. ``engine`` is
    "interpreter", "compiled" (C) or "both". A failing candidate is a result, not an error;
    a failing original raises :class:`BadInputError`.
    """
    j = _call("verify", original=_text(original), candidate=_text(candidate), seeds=seeds,
              seed=seed, engine=engine)
    return VerifyResult(j["status"], j["equivalent"], j["message"], j["engine"], j["seeds_run"],
                        j["max_abs_error"], j["max_rel_error"], j.get("mismatch"))


def lower(program: Union[str, Program], target: str = "c") -> str:
    """Generated code: target "c" (OpenMP), "cuda", "tir" (TVMScript, CUDA) or "tir-llvm"."""
    return _call("lower", program=_text(program), target=target)["code"]


@dataclass(frozen=True)
class BenchResult:
    """Median and spread of the program's compiled C over ``repeats`` runs (milliseconds)."""

    median_ms: float
    min_ms: float
    max_ms: float
    q1_ms: float
    q3_ms: float
    threads: int
    repeats: int
    samples_ms: Tuple[float, ...]
    static_work: int


def bench(program: Union[str, Program], threads: int = 1, repeats: int = 10,
          warmup: int = 2) -> BenchResult:
    """Times the program's compiled C on deterministic inputs (``steptp bench``)."""
    j = _call("bench", program=_text(program), threads=threads, repeats=repeats, warmup=warmup)
    return BenchResult(j["median_ms"], j["min_ms"], j["max_ms"], j["q1_ms"], j["q3_ms"],
                       j["threads"], j["repeats"], tuple(j["samples_ms"]), j["static_work"])


# ---- reward ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RewardResult:
    """The verdict on one model answer, by ``steptp eval-single``'s rules, and a scalar.

    ``reward`` = 0 when the answer has no readable ``<answer>`` JSON; 0.1 when it is readable
    but not a legal, equivalent step of the strategy it names; otherwise
    ``1 + speedup_weight * clamp(log2(speedup), -1, 1)`` with the measured speedup when
    measured, else the modelled one (static cost model), original over candidate.
    ``matched`` is None unless references were given; ``failure`` is eval-single's first
    failure reason ("" when correct); ``outcome`` its whole per-question outcome.
    """

    reward: float
    format_ok: bool
    legal: bool
    equivalent: bool
    matched: Optional[bool]
    correct: bool
    modelled_speedup: Optional[float]
    measured_speedup: Optional[float]
    failure: str
    detail: str
    outcome: Dict[str, Any] = field(repr=False)
    measure_error: Optional[str] = None


Reference = Union[Tuple[str, str], Mapping[str, str]]


def reward(original: Union[str, Program, None], answer: str,
           references: Optional[Sequence[Reference]] = None, asked: int = 1, *,
           record: Union[str, Mapping[str, Any], ChatRecord, Sequence[Any], None] = None,
           seeds: int = 3,
           measure: bool = False, threads: int = 1, repeats: int = 10,
           speedup_weight: float = 0.5) -> RewardResult:
    """Scores a model's raw answer (``<think>...</think><answer>{JSON}</answer>``).

    The question is ``original`` (a program with declarations) with optional ``references``
    ((strategy, program) pairs: then the answer must match one, as in eval-single) and
    ``asked`` answers (>= 2: a JSON list); or ``record``, the chat records of a build-dataset
    split that share one prompt (a :class:`ChatRecord`, a dict, a list of them, or JSONL text),
    read exactly as ``eval-single`` reads them (every record's answer is a reference). ``measure`` times the
    compiled C of both programs. Raises :class:`BadInputError` when the question itself is bad;
    a bad answer is a low reward, never an exception.
    """
    refs = None
    if references is not None:
        refs = [dict(r) if isinstance(r, Mapping) else {"strategy": r[0], "program": r[1]}
                for r in references]
    if isinstance(record, ChatRecord):
        record = record.raw
    elif isinstance(record, (list, tuple)):
        record = [r.raw if isinstance(r, ChatRecord) else r for r in record]
    j = _call("reward", original=None if original is None else _text(original), answer=answer,
              references=refs, asked=asked, record=record, seeds=seeds, measure=measure,
              threads=threads, repeats=repeats, speedup_weight=speedup_weight)
    return RewardResult(j["reward"], j["format_ok"], j["legal"], j["equivalent"], j["matched"],
                        j["correct"], j["modelled_speedup"], j["measured_speedup"], j["failure"],
                        j["detail"], j["outcome"], j.get("measure_error"))
