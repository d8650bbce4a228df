"""Tests of hyperoffload_torch against PyTorch itself and the planner.

Run by ctest (`pytorch-import`, through utils/run-pytorch-tests.sh) with
HYPEROFFLOAD_BIN naming the directory of hyperoffload-opt.
"""

import contextlib
import io
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import unittest

import torch
import torchvision

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import hyperoffload_torch as ht  # noqa: E402
from hyperoffload_torch import __main__ as cli  # noqa: E402
from hyperoffload_torch import mlir  # noqa: E402

BIN = pathlib.Path(os.environ.get("HYPEROFFLOAD_BIN", "build/bin"))

# torchvision's documented sizes (the `num_params` and `GFLOPS` of each
# model's weights entry; torchvision's GFLOPS count multiply-adds).
PUBLISHED = {
    "resnet50": (25_557_032, 4.089e9),
    "vit_b_16": (86_567_656, 17.564e9),
}


def import_torchvision(name, mode, batch=1, **kwargs):
    return ht.import_model(f"torchvision.models:{name}",
                           [f"{batch}x3x224x224"], mode=mode, **kwargs)


def eager_saved_bytes(model, x):
    """What PyTorch itself saves for backward in a training forward pass:
    the distinct storages autograd packs, leaving out the parameters,
    buffers and the input, which live on whether or not they are saved."""
    model.train()
    kept = {t.data_ptr() for t in [*model.parameters(), *model.buffers(), x]}
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage() if hasattr(
            tensor, "untyped_storage") else tensor.storage()
        if storage.data_ptr() not in kept:
            saved[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
        torch.nn.functional.cross_entropy(
            out, torch.zeros(out.shape[0], dtype=torch.int64))
    return sum(saved.values())


def hyperoffload_opt(*args, input_text=None):
    result = subprocess.run([str(BIN / "hyperoffload-opt"), *args],
                            input=input_text, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"hyperoffload-opt {' '.join(args)} failed:\n"
                             f"{result.stderr}")
    return result.stdout


def write_mlir(graph) -> str:
    out = io.StringIO()
    mlir.write(graph, out)
    return out.getvalue()


class ShapesAndCounts(unittest.TestCase):
    def test_parameters_and_forward_flops_match_torchvision(self):
        for name, (parameters, macs) in PUBLISHED.items():
            with self.subTest(model=name):
                graph = import_torchvision(name, "infer")
                self.assertEqual(graph.parameters, parameters)
                forward_macs = graph.flops() / 2
                self.assertLess(abs(forward_macs / macs - 1), 0.02,
                                f"{forward_macs:.4g} MACs against {macs:.4g}")

    def test_parameters_match_torchvision_for_many_architectures(self):
        # num_params of each model's weights entry; RegNet computes its
        # widths with tensors while it is built.
        models = {"mobilenet_v3_large": "MobileNet_V3_Large_Weights",
                  "efficientnet_b0": "EfficientNet_B0_Weights",
                  "densenet121": "DenseNet121_Weights",
                  "convnext_tiny": "ConvNeXt_Tiny_Weights",
                  "swin_t": "Swin_T_Weights",
                  "regnet_y_400mf": "RegNet_Y_400MF_Weights",
                  "inception_v3": "Inception_V3_Weights"}
        for name, weights in models.items():
            with self.subTest(model=name):
                expected = getattr(torchvision.models,
                                   weights).DEFAULT.meta["num_params"]
                size = 299 if name == "inception_v3" else 224
                graph = ht.import_model(f"torchvision.models:{name}",
                                        [f"1x3x{size}x{size}"])
                self.assertEqual(graph.parameters, expected)
                self.assertEqual(dict(graph.unknown), {})

    def test_a_training_step_is_about_three_forwards(self):
        for name in PUBLISHED:
            with self.subTest(model=name):
                graph = import_torchvision(name, "train", batch=2)
                ratio = graph.flops() / graph.flops({"forward"})
                self.assertGreater(ratio, 2.9)
                self.assertLess(ratio, 3.1)

    def test_saved_for_backward_is_what_autograd_saves(self):
        cases = [("resnet50", (2, 3, 64, 64)), ("vit_b_16", (1, 3, 224, 224))]
        for name, shape in cases:
            with self.subTest(model=name):
                torch.manual_seed(0)
                eager = eager_saved_bytes(getattr(torchvision.models, name)(),
                                          torch.randn(*shape))
                graph = ht.import_model(f"torchvision.models:{name}",
                                        ["x".join(map(str, shape))],
                                        mode="train")
                ours = sum(v.nbytes for v in graph.saved_for_backward)
                self.assertLess(abs(ours / eager - 1), 1e-3,
                                f"{ours} bytes against PyTorch's {eager}")

    def test_a_constructor_that_reads_tensor_values_is_built(self):
        class Widths(torch.nn.Module):
            def __init__(self):
                super().__init__()
                width = int(torch.arange(1, 5).sum().item())  # 10
                self.linear = torch.nn.Linear(width, width)

            def forward(self, x):
                return self.linear(x)

        module = ht.build_on_meta(Widths)
        self.assertEqual(module.linear.weight.shape, (10, 10))
        self.assertEqual(module.linear.weight.device.type, "meta")

    def test_a_large_configuration_allocates_no_weights(self):
        # Two layers at LLaMA-70B width: 1.7 G parameters, 6.9 GB in f32.
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        graph = ht.import_model(
            "hyperoffload_torch.models:llama_decoder", ["1x128x8192"],
            kwargs=dict(layers=2, hidden=8192, heads=64, kv_heads=8,
                        ffn=28672))
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        self.assertEqual(graph.parameters, 2 * (2 * 8192 * 8192
                                                + 2 * 8192 * 1024
                                                + 3 * 8192 * 28672
                                                + 2 * 8192))
        self.assertLess(grown * 1024, 1e9, "tracing allocated the weights")


class WhatTheGraphSays(unittest.TestCase):
    def test_roles_locations_and_in_place_writes(self):
        graph = import_torchvision("resnet50", "train")
        roles = {a.role for a in graph.arguments}
        self.assertEqual(roles, {"weight", "buffer", "input",
                                 "optimizer_state"})
        self.assertEqual({role for _, role in graph.results},
                         {"loss", "gradient", "weight", "buffer",
                          "optimizer_state"})
        locations = {op.location for op in graph.ops}
        self.assertIn("layer3.2.conv2", locations)
        self.assertIn("backward / layer3.2.conv2", locations)
        self.assertIn("optimizer / layer3.2.conv2.weight", locations)
        # relu_ writes its operand; batch norm its running statistics.
        relu = next(op for op in graph.ops if op.aten == "relu_")
        self.assertEqual(relu.tied, [0])
        norm = next(op for op in graph.ops if op.aten == "native_batch_norm")
        self.assertEqual(norm.tied[-2:], [3, 4])
        adam = next(op for op in graph.ops if op.kind == "adam")
        self.assertEqual(adam.tied, [0, 2, 3])

    def test_an_op_without_a_formula_is_kept_and_listed(self):
        class Cumulative(torch.nn.Module):
            def forward(self, x):
                return torch.cumsum(x, dim=1) * 2

        capture = ht.trace_step(Cumulative(), [ht.InputSpec((4, 8))],
                                "infer", torch.float32, "cumulative")
        graph = ht.lower(capture)
        self.assertEqual(dict(graph.unknown), {"cumsum": 1})
        self.assertEqual([op.kind for op in graph.ops], ["cumsum", "mul"])
        self.assertIn('ho.compute "cumsum"(%arg0) {bytes = 256 : i64, '
                      'flops = 0 : i64}', write_mlir(graph))

    def test_an_unknown_optimizer_is_refused(self):
        capture = ht.trace_step(torch.nn.Linear(4, 4), [ht.InputSpec((2, 4))],
                                "train", torch.float32, "linear")
        with self.assertRaisesRegex(ht.CaptureError,
                                    "optimizer 'lion': expected one of adam"):
            ht.lower(capture, optimizer="lion")

    def test_value_dependent_control_flow_names_its_module(self):
        class Gate(torch.nn.Module):
            def forward(self, x):
                return x if x.sum() > 0 else -x

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = torch.nn.Sequential(torch.nn.Linear(4, 4), Gate())

            def forward(self, x):
                return self.body(x)

        with self.assertRaisesRegex(ht.CaptureError,
                                    "cannot trace module 'body.1': its "
                                    "control flow .* depends on tensor "
                                    "values"):
            ht.trace_step(Net(), [ht.InputSpec((2, 4))], "infer",
                          torch.float32, "net")


class ThePlannerTakesIt(unittest.TestCase):
    """Every imported graph parses, verifies, prints back the same, and is
    planned at 50% and 75% of its peak with a plan that verifies."""

    def check_planned(self, graph):
        self.check_text_planned(write_mlir(graph))

    def check_text_planned(self, text):
        printed = hyperoffload_opt("-", input_text=text)
        self.assertEqual(hyperoffload_opt("-", input_text=printed), printed)
        with tempfile.TemporaryDirectory() as scratch:
            path = pathlib.Path(scratch, "graph.mlir")
            path.write_text(text)
            report = pathlib.Path(scratch, "report.json")
            hyperoffload_opt(str(path), "-o", os.devnull,
                             f"--ho-report=json={report} allocator=ideal "
                             f"output={os.devnull}")
            metrics = json.loads(report.read_text())["functions"]
            (peak,) = [f["peak_live_bytes"] for f in metrics.values()]
            for share in (0.5, 0.75):
                budget = f"{int(peak * share)}B"
                planned = hyperoffload_opt(
                    str(path), f"--hyperoffload=budget={budget}")
                # Below the peak, the plan must move something out.
                self.assertRegex(planned, r"ho\.(offload|prefetch)")
                hyperoffload_opt(f"--ho-verify-schedule=budget={budget}",
                                 input_text=planned)

    def test_torchvision_training_steps(self):
        for name in PUBLISHED:
            with self.subTest(model=name):
                self.check_planned(import_torchvision(name, "train", batch=4,
                                                      dtype="bf16"))

    def test_the_shipped_scenarios(self):
        shipped = sorted(pathlib.Path(__file__).resolve().parents[2].glob(
            "models/pytorch/*.mlir"))
        self.assertEqual(len(shipped), 3)
        for path in shipped:
            with self.subTest(graph=path.name):
                self.check_text_planned(path.read_text())

    def test_inference_and_a_decoder_layer(self):
        self.check_planned(import_torchvision("resnet50", "infer", batch=8))
        self.check_planned(ht.import_model(
            "hyperoffload_torch.models:llama_decoder", ["1x256x512"],
            mode="train", kwargs=dict(hidden=512, heads=8, kv_heads=2,
                                      ffn=1024)))


class CommandLine(unittest.TestCase):
    def run_cli(self, *args):
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            status = cli.main(list(args))
        return status, stderr.getvalue()

    def test_export_writes_the_graph_and_a_summary(self):
        with tempfile.TemporaryDirectory() as scratch:
            out = pathlib.Path(scratch, "vit.mlir")
            status, summary = self.run_cli(
                "export", "torchvision.models:vit_b_16", "--input",
                "2x3x224x224", "--mode", "train", "--dtype", "bf16",
                "-o", str(out))
            self.assertEqual(status, 0)
            self.assertIn("vit_b_16, train step: 86,567,656 parameters",
                          summary)
            self.assertIn("(3.01x the forward)", summary)
            self.assertIn("func.func @vit_b_16_train(", out.read_text())

    def test_model_files_that_are_missing_or_broken(self):
        with tempfile.TemporaryDirectory() as scratch:
            broken = pathlib.Path(scratch, "broken.py")
            broken.write_text("import torch\nraise ValueError('no GPU')\n")
            missing = pathlib.Path(scratch, "missing.py")
            for spec, message in (
                    (f"{broken}:Net", f"{broken} fails to load: ValueError: "
                                      f"no GPU"),
                    (f"{missing}:Net", f"no file {missing}")):
                with self.subTest(spec=spec):
                    status, stderr = self.run_cli("export", spec, "--input",
                                                  "1")
                    self.assertEqual(status, 1)
                    self.assertIn(message, stderr)

    def test_errors_say_what_and_where(self):
        cases = [
            (["torchvision.models:resnet5", "--input", "1x3x8x8"],
             "torchvision.models has no 'resnet5'; did you mean 'resnet50'?"),
            (["torchvision.models:resnet50", "--arg", "depth=3", "--input",
              "1x3x8x8"],
             "building resnet50 failed: TypeError: "),
            (["torchvision.models:resnet50", "--input", "1x3"],
             "cannot trace module 'conv1': RuntimeError: Expected 3D"),
            (["torchvision.models:resnet50", "--input", "1x3xa"],
             "input '1x3xa': expected a shape such as 8x3x224x224"),
            (["no_such_package:net", "--input", "1"],
             "cannot import no_such_package"),
            (["resnet50", "--input", "1x3x8x8"],
             "model 'resnet50': expected MODULE:NAME"),
            (["torchvision.models:resnet50", "--input", "1x3x8x8:int4"],
             "input '1x3x8x8:int4': unknown dtype 'int4'"),
            (["torchvision.models:get_weight", "--input", "1"],
             "building get_weight failed: TypeError"),
            (["torchvision.models:list_models", "--input", "1"],
             "list_models returned a list, not an nn.Module"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                status, stderr = self.run_cli("export", *args)
                self.assertEqual(status, 1)
                self.assertIn("hyperoffload_torch: error: ", stderr)
                self.assertIn(message, stderr)


if __name__ == "__main__":
    unittest.main()
