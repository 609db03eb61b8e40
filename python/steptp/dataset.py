"""Readers of what ``steptp build-dataset`` writes.

* the chat splits (``single_train.jsonl``, ``multi_test.jsonl``, ...): one
  ``{"messages": [system, user, assistant]}`` record per line;
* the archive (``archive.jsonl``): one verified step per line with its provenance, CoT and
  verification.

Both readers stream (one record at a time), skip blank lines and raise ``ValueError`` naming
the file and line of a record that is not what ``build-dataset`` writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

__all__ = ["ArchiveRecord", "ChatRecord", "read_archive", "read_chat"]

PathLike = Union[str, Path]


@dataclass(frozen=True)
class ChatRecord:
    """One chat sample. ``answer`` is the assistant's text ("" when the record has none);
    ``raw`` the whole record, which :func:`steptp.reward` accepts as ``record=``."""

    messages: Tuple[Dict[str, str], ...]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def prompt(self) -> List[Dict[str, str]]:
        """The messages a model is sent: everything before the assistant's answer."""
        msgs = list(self.messages)
        return msgs[:-1] if msgs and msgs[-1]["role"] == "assistant" else msgs

    @property
    def answer(self) -> str:
        return self.messages[-1]["content"] if self.messages and \
            self.messages[-1]["role"] == "assistant" else ""


@dataclass(frozen=True)
class ArchiveRecord:
    """One verified step of the archive (field names as in docs/formats.md)."""

    workload: str
    unit: str
    instance: str
    strategy: str
    category: str
    difficulty: str
    site: str
    declarations: str
    original_ir: str
    transformed_ir: str
    depth: int
    provenance: Tuple[str, ...]
    cot: str
    verification: Dict[str, Any]
    split: Optional[str]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def original_program(self) -> str:
        """The program before the step: declarations, then the body."""
        return self.declarations.rstrip("\n") + "\n" + self.original_ir + "\n"

    @property
    def transformed_program(self) -> str:
        return self.declarations.rstrip("\n") + "\n" + self.transformed_ir + "\n"


def _lines(path: PathLike) -> Iterator[Tuple[int, Dict[str, Any]]]:
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not JSON: {e}") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{n}: a record must be a JSON object")
            yield n, record


def read_chat(path: PathLike) -> Iterator[ChatRecord]:
    """Streams the records of a chat split."""
    for n, r in _lines(path):
        msgs = r.get("messages")
        if not isinstance(msgs, list) or not msgs or not all(
                isinstance(m, dict) and isinstance(m.get("role"), str)
                and isinstance(m.get("content"), str) for m in msgs):
            raise ValueError(f"{path}:{n}: no \"messages\" list of {{role, content}} strings")
        yield ChatRecord(tuple({"role": m["role"], "content": m["content"]} for m in msgs), r)


_ARCHIVE_FIELDS = ("workload", "unit", "strategy", "site", "declarations", "original_IR",
                   "transformed_IR")


def read_archive(path: PathLike) -> Iterator[ArchiveRecord]:
    """Streams the records of ``archive.jsonl``."""
    for n, r in _lines(path):
        missing = [k for k in _ARCHIVE_FIELDS if not isinstance(r.get(k), str)]
        if missing:
            raise ValueError(f"{path}:{n}: an archive record needs string fields {missing}")
        yield ArchiveRecord(
            workload=r["workload"], unit=r["unit"], instance=r.get("instance", ""),
            strategy=r["strategy"], category=r.get("category", ""),
            difficulty=r.get("difficulty", ""), site=r["site"], declarations=r["declarations"],
            original_ir=r["original_IR"], transformed_ir=r["transformed_IR"],
            depth=int(r.get("depth", 0)), provenance=tuple(r.get("provenance", ())),
            cot=r.get("cot", ""), verification=dict(r.get("verification", {})),
            split=r.get("split"), raw=r)
