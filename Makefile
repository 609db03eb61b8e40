# The README's two commands: `make demo` (main job on the bundled default) and `make test`.
# Both install missing Debian packages first, so they work on a fresh Debian 12 machine.
BUILD ?= build
BUILD_TYPE ?= Release
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)

.PHONY: all deps configure build demo test test-unit bench fuzz format clean train-smoke

all: build

deps:
	bash scripts/install-deps.sh

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS); fi

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 1500

bench: build
	bash bench/run_all.sh $(BUILD)

format:
	clang-format-14 -i $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD)

# SFT smoke test: a tiny random Qwen3-architecture model trained on CPU for TRAIN_STEPS steps on a
# chat JSONL; fails unless the loss went down. TOKENIZER: a tokenizer dir or tokenizer.json.
TOKENIZER ?= ../shared/data/qwen3
TRAIN_DATA ?= tests/data/chat_sample.jsonl
TRAIN_STEPS ?= 50
TRAIN_OUT ?= out/train-smoke

train-smoke:
	bash scripts/setup-venv.sh model-loop
	.venv/bin/python python/train_sft.py --tiny-qwen3 --tokenizer $(TOKENIZER) --data $(TRAIN_DATA) \
	  --cpu --max-steps $(TRAIN_STEPS) --max-length 1024 --batch-size 1 --lr 3e-3 --seed 0 --out $(TRAIN_OUT)
	.venv/bin/python -c 'import json, sys; m = json.load(open("$(TRAIN_OUT)/metrics.json")); \
	  print("train-smoke: %d steps, loss %.4f -> %.4f, %.1f s" % (m["steps"], m["first_loss"], m["last_loss"], m["wall_seconds"])); \
	  sys.exit(0 if m["last_loss"] < m["first_loss"] else "train-smoke: FAIL: the loss did not go down")'
