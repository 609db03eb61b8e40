"""steptp.dataset reads what build-dataset writes."""

import json

import pytest

import steptp
from steptp.dataset import read_archive, read_chat


def test_read_archive_gives_verified_steps_that_replay(dataset):
    records = list(read_archive(dataset / "archive.jsonl"))
    lines = [l for l in open(dataset / "archive.jsonl") if l.strip()]
    assert len(records) == len(lines) > 0
    for r in records[:10]:
        assert r.verification["status"] == "equivalent"
        # Each archived step is a real step: the site replays to the transformed program.
        assert steptp.apply(r.original_program, r.site).program.body == r.transformed_ir


def test_read_chat_splits_prompt_and_answer(dataset):
    recs = list(read_chat(dataset / "single_test.jsonl"))
    assert recs
    for r in recs:
        assert [m["role"] for m in r.prompt] == ["system", "user"]
        assert r.answer.startswith("<think>")


def test_a_bad_line_names_file_and_line(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"messages": [{"role": "user", "content": "x"}]}\n\nnot json\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:3: not JSON"):
        list(read_chat(f))
