#!/usr/bin/env python3
"""Imports every torchvision classification model, for inference and for a
training step, and prints one line each: parameters (and whether they are
torchvision's `num_params`), ops, forward multiply-adds per image, and the
ATen ops imported without a FLOP formula. Exits 1 if an import fails or a
parameter count differs from torchvision's.

  /usr/bin/python3 utils/import-torchvision-models.py   # about 3 minutes

Needs torch and torchvision (utils/install-deps.sh --torch).
"""

import collections
import pathlib
import sys

import torchvision

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))

import hyperoffload_torch as ht  # noqa: E402


# Where torchvision's default weights use another configuration than the
# builder's defaults: the keyword arguments and the image size they need.
WEIGHTS_CONFIGURATION = {
    "googlenet": ({"aux_logits": False}, 224),
    "inception_v3": ({}, 299),
    "vit_h_14": ({"image_size": 518}, 518),
}


def main():
    models = torchvision.models
    names = models.list_models(module=models)
    unknown, failed, mismatched = collections.Counter(), [], set()
    for name in names:
        kwargs, size = WEIGHTS_CONFIGURATION.get(name, ({}, 224))
        expected = models.get_model_weights(name).DEFAULT.meta["num_params"]
        for mode, batch in (("infer", 1), ("train", 2)):
            try:
                graph = ht.import_model(f"torchvision.models:{name}",
                                        [f"{batch}x3x{size}x{size}"],
                                        mode=mode, kwargs=kwargs)
            except ht.CaptureError as error:
                failed.append(f"{name} {mode}")
                print(f"{name:24} {mode:5}  error: {error}")
                continue
            unknown.update(graph.unknown)
            if graph.parameters != expected:
                mismatched.add(name)
            match = " (= torchvision)" if graph.parameters == expected \
                else f" (torchvision: {expected:,})"
            macs = graph.flops({"forward"}) / 2 / batch / 1e9
            print(f"{name:24} {mode:5}  {graph.parameters:>11,} parameters"
                  f"{match}, {len(graph.ops):5} ops, {macs:7.3f} GMAC forward"
                  f"{', without a formula: ' + str(dict(graph.unknown)) if graph.unknown else ''}")
    print(f"{len(names)} models, {len(failed)} imports failed"
          f"{': ' + ', '.join(failed) if failed else ''}, "
          f"{len(mismatched)} with other parameter counts than torchvision's"
          f"{': ' + ', '.join(sorted(mismatched)) if mismatched else ''}; "
          f"ops without a formula: {dict(unknown) or 'none'}")
    return 1 if failed or mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
