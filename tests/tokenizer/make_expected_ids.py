#!/usr/bin/env python3
"""tests/tokenizer/make_expected_ids.py — the expected token ids for the native tokenizer's tests,
computed by the real Hugging Face `tokenizers` library (and the chat renderings by jinja2 with
Qwen3's own chat template), never by steptp's code.

  python tests/tokenizer/make_expected_ids.py            # corpus.jsonl -> expected_ids.jsonl
  python tests/tokenizer/make_expected_ids.py --corpus   # also rebuild corpus.jsonl and tiny_*.json

Inputs: ../shared/data/qwen3/{tokenizer.json,tokenizer_config.json} and, with --corpus,
../shared/reference/leir_corpus_level1.jsonl. Outputs go to tests/data/tokenizer/.

The tiny_*.json tokenizers are cut out of Qwen3's (the 256 byte symbols, the first merges and a
few unreachable whole words) with the features Qwen3 itself does not use switched on: added-token
flags (lstrip, rstrip, single_word, normalized), ignore_merges, merges in "a b" string form,
bytes missing from the vocabulary with and without an unk token (fused or not). Their added-token
ids are written as len(vocab)+k on purpose, even where the content is already a vocabulary entry
("word", "ab", "abc"): HF then uses the vocabulary id and renumbers the rest, and so must steptp.

The chat cases are rendered with jinja2 the way transformers' apply_chat_template renders them
(checked equal to apply_chat_template on every case with the pinned transformers).
"""
import argparse
import hashlib
import json
import pathlib
import sys
import unicodedata

import tokenizers  # PyPI `tokenizers`, pinned in python/requirements/model-loop.txt

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
QWEN_DIR = SHARED / "data" / "qwen3"
OUT = REPO / "tests" / "data" / "tokenizer"
TINY_MERGES = 2000
TINY_MAX_TEXT = 2000  # tiny tokenizers only see corpus texts up to this many characters

# --------------------------------------------------------------------------------------------
# The corpus (only with --corpus; the checked-in corpus.jsonl is the fixed input otherwise).


def leir_lines():
    rows = [json.loads(l) for l in open(SHARED / "reference" / "leir_corpus_level1.jsonl")]
    out = []
    for i, r in enumerate(rows):
        body = r["leir"]
        if i % 3 == 0:
            out.append((f"leir/{r['model']}", body))
        elif i % 3 == 1:
            decls = []
            for name, shape, dtype in zip(r["known_names"], r["known_shapes"], r["known_dtype"]):
                role = "input" if name in r["input_known_names"] else "output"
                dt = dtype.replace("torch.float", "f")
                decls.append(f"{role} {name} {dt}[{','.join(str(d) for d in shape)}]")
            out.append((f"leir_file/{r['model']}",
                        f"# {r['model']}\n" + "\n".join(decls) + "\n" + body + "\n"))
        else:
            spaced = body.replace(";", ";\n  ").replace(",", ", ").replace("=", " = ")
            out.append((f"leir_spaced/{r['model']}", spaced))
    for r in rows[:20]:
        out.append((f"fx_ops/{r['model']}", json.dumps(r["fx_ops"])))
    return out


SYSTEM = ("You are an expert in tensor program optimization. You rewrite LEIR programs one "
          "verified step at a time.")


def chat_prompt_lines():
    rows = [json.loads(l) for l in open(SHARED / "reference" / "leir_corpus_level1.jsonl")]
    out = []
    for r in rows[30:42]:
        user = (f"Task: {r['model']}\nDeclarations:\n"
                + "".join(f"  {n} {s}\n" for n, s in zip(r["known_names"], r["known_shapes"]))
                + f"Program:\n{r['leir']}\n\nChoose the next strategy. Answer with a JSON object "
                  "{\"strategy\": ..., \"site\": ...}.")
        answer = ("<think>\nThe innermost loop is a reduction; tiling it exposes reuse."
                  "\n</think>\n\n"
                  "{\"strategy\": \"loop_tiling\", \"site\": \"loop_tiling(block=0, loops=a, "
                  "factors=32)\"}")
        out.append((f"chat_text/{r['model']}",
                     f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                     f"<|im_start|>assistant\n{answer}<|im_end|>\n"))
    return out


def chat_cases():
    think = "<think>\nThe loop over a reads A twice.\n</think>\n\nApply loop_fusion(block=0)."
    return [
        ("chat/system_user_assistant",
         [("system", SYSTEM), ("user", "Optimize B^{4}_{tx=0}[C^{f64,g}_{tx}=A^{f64,g}_{tx};];"),
          ("assistant", "loop_unrolling(block=0, loop=tx)")]),
        ("chat/final_assistant_with_think", [("user", "Next step?"), ("assistant", think)]),
        ("chat/think_without_newlines",
         [("user", "Next step?"), ("assistant", "<think>reason here</think>the answer")]),
        ("chat/multi_turn_think_dropped_before_last_query",
         [("system", SYSTEM), ("user", "step 1?"), ("assistant", think), ("user", "step 2?"),
          ("assistant", "<think>\nsecond reasoning\n</think>\n\nloop_tiling(block=1)")]),
        ("chat/only_close_think", [("user", "q"), ("assistant", "partial</think>\n\nanswer")]),
        ("chat/empty_final_assistant", [("user", "q"), ("assistant", "")]),
        ("chat/tools", [("user", "run it"), ("assistant", "calling"), ("tool", "result 1"),
                        ("tool", "result 2"), ("assistant", "<think>\nok\n</think>\n\ndone")]),
        ("chat/user_tool_response_wrapper",
         [("user", "first"), ("assistant", "<think>a</think>b"),
          ("user", "<tool_response>\n42\n</tool_response>"), ("assistant", "<think>c</think>d")]),
        ("chat/second_system", [("user", "hi"), ("system", "be brief"), ("assistant", "ok")]),
        ("chat/unknown_role", [("developer", "ignored by the template"), ("user", "hi"),
                               ("assistant", "hello")]),
        ("chat/many_close_think",
         [("user", "q"), ("assistant", "<think>x</think>y</think>\n\nz<think>w")]),
        ("chat/user_only", [("user", "just a question <|im_end|> with a token")]),
        ("chat/assistant_mid_after_last_query",
         [("user", "q"), ("assistant", "<think>r</think>plain"), ("tool", "out")]),
        ("chat/newlines_around_think",
         [("user", "q"), ("assistant", "\n\n<think>\n\nx\n\n</think>\n\n\ny\n")]),
        ("chat/assistant_first", [("assistant", "<think>t</think>a"), ("user", "u")]),
        ("chat/unicode", [("system", "Réponds en français 🙂"), ("user", "你好 e\u0301"),
                          ("assistant", "<think>\n思考\n</think>\n\nمرحبا")]),
    ]


def hostile_lines():
    added = [t["content"] for t in json.load(open(QWEN_DIR / "tokenizer.json"))["added_tokens"]]
    h = []
    add = lambda name, text: h.append((name, text))
    add("empty", "")
    for name, s in [("space", " "), ("newline", "\n"), ("crlf", "\r\n"), ("tab", "\t"),
                    ("cr", "\r"), ("two_spaces", "  "), ("space_newline", " \n"),
                    ("mixed_ws", "a\tb\r\nc\n\n\n d \r\r\n  e  \n\t\n"),
                    ("trailing_ws", "word   "), ("leading_ws", "   word"),
                    ("ws_before_newline", "x   \n   y"), ("vt_ff", "a\x0bb\x0cc")]:
        add(f"ws/{name}", s)
    add("readme/hello_world", "hello world")
    add("case/mixed", "Hello World HELLO hello hELLO")
    add("contractions", "'s 'S 'RE 'Ll don't I'M we'VE they'd it's 'd'd ''s '''")
    add("contractions/long_s", "it'ſ 'ſ 'K")
    add("contractions/curly", "it’s don’t ‘quoted’ “double”")
    add("turkish", "İstanbul ılık IĞDIR i̇")
    add("cjk/zh", "你好，世界！这是一个测试。分词器应该正确处理中文。")
    add("cjk/ja", "こんにちは世界、カタカナとひらがなと漢字。ｶﾀｶﾅ")
    add("cjk/ko_nfc", "안녕하세요 세계")
    add("cjk/ko_nfd", unicodedata.normalize("NFD", "안녕하세요 세계"))
    add("emoji/basic", "😀😃😄 smile 😁")
    add("emoji/zwj_family", "👨‍👩‍👧‍👦 and 👩🏽‍💻 and 🏳️‍🌈")
    add("emoji/flags", "🇺🇸🇯🇵🇫🇷 flags")
    add("emoji/skin_keycap_vs16", "👍🏽 1️⃣ #️⃣ ❤️ ❤ ☺️")
    add("nfc/e_acute_composed", "café résumé naïve")
    add("nfc/e_acute_decomposed", unicodedata.normalize("NFD", "café résumé naïve"))
    add("nfc/angstrom_ohm", "\u212b \u2126 \u00c5 \u03a9 K")
    add("nfc/ligature", "ﬁ ﬂ ﬀ")
    add("nfc/vietnamese_nfd", unicodedata.normalize("NFD", "Tiếng Việt có dấu"))
    add("nfc/vietnamese_nfc", "Tiếng Việt có dấu")
    add("nfc/combining_order", "a\u0323\u0302 a\u0302\u0323 q\u0307\u0323")
    add("nfc/zalgo", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇")
    add("nfc/leading_combining", "\u0301abc \u0301\u0302")
    add("rtl/arabic", "مرحبا بالعالم ١٢٣")
    add("rtl/hebrew", "שלום עולם שָׁלוֹם")
    add("rtl/marks", "abc\u200fdef\u200eghi \u202eevil\u202c \u2067iso\u2069")
    add("rtl/mixed", "abc אבג 123 مرحبا def")
    add("indic/devanagari", "नमस्ते दुनिया क्षत्रिय")
    add("thai", "สวัสดีชาวโลกภาษาไทยไม่มีช่องว่าง")
    add("unicode_ws", "a\u00a0b\u2003c\u3000d\u0085e\u180ef\u200bg\ufeffh\u2028i\u2029j")
    add("unicode_ws/runs", "  \u00a0 x \u3000\u3000y\u2003 \n\u00a0\n")
    # U+180E was White_Space before Unicode 6.3: PCRE2 still counts it in \s, Oniguruma does not.
    add("unicode_ws/mongolian_vowel_separator",
        "x\u180e\u180e\ny \u180e \u180e a \u180e a\u180e! \u180e\u180e123 "
        "\u180e\u180e\u180e. \u180e  x \u180e\u180e   y")
    add("unicode_ws/next_line", " \u0085\u0085 x\u0085\ny\u0085")
    add("control", "\x00\x01\x02\x7f \x1b[31mred\x1b[0m \x08")
    add("numbers", "3.14159 1e-10 0x1F 1,000,000 ٣٤٥ Ⅻ ½ ²³ ①② 𝟙𝟚")
    add("digits_letters", "abc123def x1y2z3 v2.0.1 2024-01-01T00:00:00Z")
    add("mixed_script_word", "helloмир世界wörld")
    add("invalid_looking", "\ufffd \\xff\\xfe %C3%A9 \\u00e9 &#233; &eacute; À\x80")
    add("noncharacters", "\uffff \U0010ffff \ufdd0 \ue000 \U000f0000 \u0378 \U0001fffe")
    add("code/python", "def f(x):\n    return x ** 2  # square\n\nprint(f(3))\n")
    add("code/cpp", "#include <vector>\nint main() { std::vector<int> v{1,2,3}; return v[0]; }\n")
    add("code/json", json.dumps({"strategy": "loop_tiling", "factors": [32, 16], "ok": True}))
    add("markdown",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n**bold** _it_ `code` [link](http://x.y/z?a=1&b=2)")
    add("paths_urls",
        "C:\\Users\\x\\file.txt /usr/lib/x86_64-linux-gnu user@example.com https://a.b/c")
    add("latex", "\\frac{a}{b} + \\sum_{i=0}^{n} x_i^2 = \\alpha")
    # Long runs.
    add("long/10k_spaces", " " * 10000)
    add("long/10k_spaces_then_word", " " * 10000 + "word")
    add("long/5k_digits", "1234567890" * 500)
    add("long/punct_bang", "!" * 3000)
    add("long/punct_mixed", "=-" * 2000)
    add("long/word_a", "a" * 20000)
    add("long/word_ab", "ab" * 5000)
    add("long/newlines", "\n" * 5000)
    add("long/tabs", "\t" * 1000)
    add("long/space_newline", " \n" * 2000)
    add("long/crlf", "line\r\n" * 1000)
    add("long/repeated_word", "Supercalifragilisticexpialidocious" * 100)
    add("long/two_words", "x" * 3000 + " " + "y" * 3000)
    add("long/emoji", "🙂" * 2000)
    add("long/cjk", "中" * 5000)
    add("long/nfd_e", "e\u0301" * 3000)
    add("long/leir_no_spaces", "L^{64}_{a=0}" * 500)
    # Added tokens: alone, inside text, adjacent to text and to each other, broken spellings.
    for tok in added:
        add(f"added/alone/{tok}", tok)
        add(f"added/in_word/{tok}", f"abc{tok}def")
        add(f"added/spaced/{tok}", f" {tok} x {tok}\n{tok}")
    add("added/all_concatenated", "".join(added))
    add("added/all_with_text", " text ".join(added) + " end")
    add("added/adjacent", "<|im_end|><|im_start|>assistant\n<think></think>")
    add("added/partial", "<|im_start <|im_start| <im_start|> |im_end|> <|im_end")
    add("added/nested", "<<|im_end|>> <|<|endoftext|>|> <<think>> <|<think>|>")
    add("added/case", "<|IM_START|> <|Im_End|> <THINK> <| im_start |>")
    add("added/think_block", "<think>\nreasoning here\n</think>\n\nthe answer")
    add("added/tool_call", "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>")
    add("added/fim", "<|fim_prefix|>def f():<|fim_suffix|>\n    return 1<|fim_middle|>")
    add("added/nfc_before", "e\u0301<|im_end|>e\u0301")
    add("added/nfc_after", "<|im_end|>\u0301x <think>\u0308")
    add("added/ws_around", "  <|im_start|>  \n\n<|im_end|>\t\t")
    return h


def invalid_utf8_lines():
    """Byte strings that are not UTF-8: steptp reads the bytes, HF the U+FFFD-replaced text."""
    cases = [
        ("invalid/ff_fe", b"\xff\xfe"),
        ("invalid/truncated_2byte", b"abc\xc3"),
        ("invalid/bad_continuation", b"\xc3\x28 x"),
        ("invalid/truncated_3byte", b"\xe2\x82 euro"),
        ("invalid/surrogate", b"\xed\xa0\x80 s"),
        ("invalid/above_max", b"\xf4\x90\x80\x80 m"),
        ("invalid/overlong", b"\xc0\xaf \xe0\x80\xaf"),
        ("invalid/truncated_emoji", b"\xf0\x9f\x98x"),
        ("invalid/lone_continuations", b"\x80\x80\x80 \xbf"),
        ("invalid/mixed", "caf\u00e9 ".encode() + b"\xe9 na\xefve <|im_end|>\xff"),
    ]
    return cases


def write_corpus():
    lines = []
    for name, text in leir_lines() + chat_prompt_lines() + hostile_lines() + FLAG_TEXTS:
        lines.append({"name": name, "text": text})
    for name, raw in invalid_utf8_lines():
        lines.append({"name": name, "bytes_hex": raw.hex()})
    for name, messages in chat_cases():
        lines.append({"name": name, "messages": [list(m) for m in messages]})
    names = [l["name"] for l in lines]
    assert len(names) == len(set(names)), "duplicate corpus names"
    with open(OUT / "corpus.jsonl", "w", encoding="utf-8") as f:
        for l in lines:
            f.write(json.dumps(l, ensure_ascii=False) + "\n")
    print(f"wrote {len(lines)} corpus lines")


# --------------------------------------------------------------------------------------------
# The tiny tokenizers (only with --corpus).


def write_tiny_tokenizers():
    qwen = json.load(open(QWEN_DIR / "tokenizer.json", encoding="utf-8"))
    vocab = qwen["model"]["vocab"]
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    base = [tok for tok, _ in by_id[:256]]  # Qwen3's first 256 entries are the byte symbols
    merges = [tuple(m) for m in qwen["model"]["merges"][:TINY_MERGES]]
    extra_words = ["Ġtokenizer", "Ġhello", "ĠLEIR", "loop_tiling", "Ġstrategy", "ĠSupercal"]

    def build(name, drop_chars=(), unk=None, fuse_unk=False, ignore_merges=False,
              string_merges=False, normalizer={"type": "NFC"}, added=()):
        keep = [t for t in base if not any(c in t for c in drop_chars)]
        ms = [m for m in merges if not any(c in m[0] + m[1] for c in drop_chars)]
        toks = list(keep)
        for a, b in ms:
            if a + b not in toks:
                toks.append(a + b)
        toks += [w for w in extra_words if w not in toks and not any(c in w for c in drop_chars)]
        if unk:
            toks.append(unk)
        v = {t: i for i, t in enumerate(dict.fromkeys(toks))}
        added_tokens = []
        for k, spec in enumerate(added):
            t = {"id": len(v) + k, "content": spec[0], "single_word": False, "lstrip": False,
                 "rstrip": False, "normalized": False, "special": False}
            t.update(spec[1])
            added_tokens.append(t)
        j = {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens,
            "normalizer": normalizer, "pre_tokenizer": qwen["pre_tokenizer"],
            "post_processor": qwen["post_processor"], "decoder": qwen["decoder"],
            "model": {"type": "BPE", "dropout": None, "unk_token": unk,
                      "continuing_subword_prefix": "", "end_of_word_suffix": "",
                      "fuse_unk": fuse_unk, "byte_fallback": False,
                      "ignore_merges": ignore_merges, "vocab": v,
                      "merges": [f"{a} {b}" for a, b in ms] if string_merges
                      else [[a, b] for a, b in ms]},
        }
        text = json.dumps(j, ensure_ascii=False, indent=None)
        tokenizers.Tokenizer.from_str(text)  # HF must accept what we check in
        (OUT / f"{name}.json").write_text(text + "\n", encoding="utf-8")

    flag_tokens = [
        ("<|endoftext|>", {"special": True}),
        ("<mask>", {"special": True, "lstrip": True, "rstrip": True}),
        ("<L>", {"lstrip": True}),
        ("<R>", {"rstrip": True}),
        ("[SW]", {"single_word": True}),
        ("word", {"single_word": True, "normalized": True}),
        ("café", {"normalized": True}),
        (unicodedata.normalize("NFD", "naïve"), {"normalized": True}),
        ("<tag>", {}),
        ("<tag>x", {}),
        ("ab", {"special": True}),
        ("abc", {}),
        (" sp ", {"lstrip": True, "rstrip": True, "single_word": True}),
    ]
    build("tiny_flags", ignore_merges=True, string_merges=True, added=flag_tokens)
    dropped = ("z", "~", "ð")  # 'ð' is the byte 0xF0 that starts every emoji
    build("tiny_unk", drop_chars=dropped, unk="<unk>", normalizer=None,
          added=[("<|endoftext|>", {"special": True})])
    build("tiny_unk_fused", drop_chars=dropped, unk="<unk>", fuse_unk=True,
          added=[("<|endoftext|>", {"special": True})])
    build("tiny_no_unk", drop_chars=dropped, unk=None,
          added=[("<|endoftext|>", {"special": True})])


TINY = ["tiny_flags", "tiny_unk", "tiny_unk_fused", "tiny_no_unk"]

# Texts aimed at the tiny tokenizers' flags (part of the corpus, so Qwen3 encodes them too).
FLAG_TEXTS = [
    ("flags/lstrip_rstrip", "I saw a   <mask>   there\t<mask>\t<mask>\u2000end"),
    ("flags/lstrip_only", "a   <L>   b<L>c  <L>"),
    ("flags/rstrip_only", "a   <R>   b<R>c  <R>  "),
    ("flags/single_word", "[SW] x[SW] [SW]y ([SW]) [SW]_ _[SW] é[SW] [SW]\u0301 [SW]"),
    ("flags/single_word_normalized", "word words sword word. (word) wordword 1word word1"),
    ("flags/normalized_nfd_input", unicodedata.normalize("NFD", "café naïve CAFÉ cafés")),
    ("flags/normalized_nfc_input", "café naïve"),
    ("flags/longest_match", "<tag> <tag>x <tag>xy <ta <tag><tag>x"),
    ("flags/overlap_special", "abc ab abcd xabcx aab"),
    ("flags/spaced_token", "a sp b  sp  c sp"),
    ("flags/ignore_merges_words", " tokenizer hello LEIR loop_tiling strategy Supercal"),
    ("flags/dropped_bytes", "zzz ~~~ z~z 😀😀 fizz buzz~ ~😀~"),
    ("flags/adjacent_strips", "<mask><mask> <L><R> <R><L> <mask><L>"),
]


# --------------------------------------------------------------------------------------------
# Expected ids.


def render_chat(template, messages):
    import jinja2.ext  # the engine transformers renders chat templates with
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    msgs = [{"role": r, "content": c} for r, c in messages]
    return env.from_string(template).render(messages=msgs, add_generation_prompt=False)


def corpus_text(line):
    if "text" in line:
        return line["text"]
    if "bytes_hex" in line:
        return bytes.fromhex(line["bytes_hex"]).decode("utf-8", errors="replace")
    return None


def write_expected():
    corpus = [json.loads(l) for l in open(OUT / "corpus.jsonl", encoding="utf-8")]
    template = json.load(open(QWEN_DIR / "tokenizer_config.json"))["chat_template"]
    qwen_path = QWEN_DIR / "tokenizer.json"
    sha = hashlib.sha256(qwen_path.read_bytes()).hexdigest()
    qwen = tokenizers.Tokenizer.from_file(str(qwen_path))
    assert qwen.encode("hello world").ids == [14990, 1879], "not the Qwen3 tokenizer"
    out = [{"meta": {"tokenizers": tokenizers.__version__, "qwen3_tokenizer_sha256": sha,
                     "corpus_lines": len(corpus)}}]
    mismatched_decode = 0
    for line in corpus:
        text = corpus_text(line)
        if text is None:  # a chat case: render with the real template, then encode
            text = render_chat(template, line["messages"])
            ids = qwen.encode(text).ids
            out.append({"tokenizer": "qwen3", "name": line["name"], "rendered": text, "ids": ids})
            continue
        ids = qwen.encode(text).ids
        if qwen.decode(ids, skip_special_tokens=False) != unicodedata.normalize("NFC", text):
            mismatched_decode += 1
            print(f"note: HF decode differs from NFC text for {line['name']}", file=sys.stderr)
        out.append({"tokenizer": "qwen3", "name": line["name"], "ids": ids})
    tiny_texts = [(l["name"], corpus_text(l)) for l in corpus if corpus_text(l) is not None]
    tiny_texts = [(n, t) for n, t in tiny_texts if len(t) <= TINY_MAX_TEXT]
    for name in TINY:
        tok = tokenizers.Tokenizer.from_file(str(OUT / f"{name}.json"))
        for n, t in tiny_texts:
            out.append({"tokenizer": name, "name": n, "ids": tok.encode(t).ids})
    with open(OUT / "expected_ids.jsonl", "w", encoding="utf-8") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    print(f"wrote {len(out) - 1} expectations ({len(corpus)} corpus lines, "
          f"{len(TINY)} tiny tokenizers x {len(tiny_texts)} texts); "
          f"HF decode != NFC(text) on {mismatched_decode} lines")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="store_true",
                    help="rebuild corpus.jsonl and the tiny tokenizers first")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.corpus:
        write_corpus()
        write_tiny_tokenizers()
    write_expected()


if __name__ == "__main__":
    main()
