"""steptp.reward: the formula, and agreement with `steptp eval-single` on every question of a
built test split, field by field."""

import json
import math
import socket
import subprocess
import time
from pathlib import Path

import pytest

import steptp
from steptp.dataset import read_chat

from conftest import PROGRAMS

UNROLLED = ("B^{2}_{tx=0}L^{4}_{a=0}L^{4}_{c=0}U^{6}_{d=0}[C^{f64,g}_{tx,a,c}=C^{f64,g}_{tx,a,c}"
            "+A^{f64,g}_{tx,a,d}*W^{f64,g}_{tx,d,c};];")


def answer(strategy, ir):
    return ("<think>because</think><answer>"
            + json.dumps({"applied_strategy": strategy, "transformed_IR": ir}) + "</answer>")


def test_a_correct_step_earns_one_plus_the_speedup_term(matmul):
    r = steptp.reward(matmul, answer("loop_unrolling", UNROLLED))
    assert (r.format_ok, r.legal, r.equivalent, r.correct) == (True, True, True, True)
    assert r.matched is None and r.measured_speedup is None
    s = r.modelled_speedup
    assert s > 0
    assert r.reward == pytest.approx(1 + 0.5 * max(-1.0, min(1.0, math.log2(s))))


def test_an_unreadable_answer_earns_zero_and_a_wrong_one_a_tenth(matmul):
    assert steptp.reward(matmul, "no idea").reward == 0.0
    wrong = steptp.reward(matmul, answer("loop_tiling", UNROLLED))
    assert (wrong.format_ok, wrong.legal, wrong.reward) == (True, False, 0.1)
    assert wrong.failure == "illegal_step"


def test_references_must_be_matched(matmul):
    r = steptp.reward(matmul, answer("loop_unrolling", UNROLLED),
                      references=[("loop_unrolling", UNROLLED)])
    assert r.matched is True and r.correct
    r = steptp.reward(matmul, answer("loop_unrolling", UNROLLED),
                      references=[("loop_reorder", UNROLLED)])
    assert r.matched is False and not r.correct and r.failure == "no_match"


def test_measure_gives_a_measured_speedup(matmul):
    r = steptp.reward(matmul, answer("loop_unrolling", UNROLLED), measure=True, repeats=3)
    assert r.measured_speedup is not None and r.measured_speedup > 0, r.measure_error


def test_a_bad_question_is_an_exception():
    with pytest.raises(steptp.BadInputError):
        steptp.reward("B^{4", "x")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_eval_single(exe, data: Path, answers: str, out: Path):
    """eval-single against `fake-llm --answers ANSWERS`; returns (report, {prompt: answer})."""
    port = free_port()
    cmd = [exe, "fake-llm", "--answers", answers, "--port", str(port)]
    if answers == "oracle":
        cmd += ["--data", str(data)]
    server = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        subprocess.run([exe, "eval-single", "--data", str(data), "--endpoint",
                        f"http://127.0.0.1:{port}/v1", "--model", "fake", "--quiet",
                        "--transcript", str(out / "transcript.jsonl"),
                        "--out", str(out / "report.json")], check=True,
                       stdout=subprocess.DEVNULL)
    finally:
        server.terminate()
        server.wait()
    sent = {}
    for line in open(out / "transcript.jsonl"):
        t = json.loads(line)
        prompt = json.dumps(t["request"]["messages"], sort_keys=True)
        sent[prompt] = t["response"]["choices"][0]["message"]["content"]
    return json.load(open(out / "report.json")), sent


@pytest.mark.parametrize("split", ["single_test", "multi_test"])
@pytest.mark.parametrize("answers", ["random-legal", "oracle"])
def test_reward_agrees_with_eval_single_on_every_question(steptp_exe, dataset, tmp_path, split,
                                                          answers):
    data = dataset / f"{split}.jsonl"
    report, sent = run_eval_single(steptp_exe, data, answers, tmp_path)
    # Records sharing a prompt are one question, in order of first appearance (as eval-single).
    groups = {}
    for rec in read_chat(data):
        groups.setdefault(json.dumps(rec.prompt, sort_keys=True), []).append(rec)
    questions = report["per_question"]
    assert len(questions) == len(groups) > 0
    for expected, (prompt, records) in zip(questions, groups.items()):
        r = steptp.reward(None, sent[prompt], record=records)
        # "id" is "line N" of the file eval-single read; here the records are the whole input.
        assert {k: v for k, v in r.outcome.items() if k != "id"} == \
            {k: v for k, v in expected.items() if k != "id"}
        assert (r.format_ok, r.legal, r.equivalent, r.matched, r.correct) == (
            expected["parsed"], expected["legal"], expected["equivalent"], expected["matched"],
            expected["correct"])
        assert r.failure == expected["failure"]
        if not r.format_ok:
            assert r.reward == 0.0
        elif not (r.legal and r.equivalent):
            assert r.reward == 0.1
        else:
            assert 0.5 <= r.reward <= 1.5
    if answers == "oracle":
        assert all(q["correct"] for q in questions)
