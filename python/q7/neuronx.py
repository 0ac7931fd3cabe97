"""`python -m q7.neuronx SCRIPT [ARGS]`: run a Neuron custom-op script on CPU.

When the real `torch_neuronx` is not installed, `torch_neuronx.xla_impl.custom_op`
resolves to `q7.custom_op` for the script, so `from torch_neuronx.xla_impl import
custom_op` works unmodified. Anything else of torch_neuronx the script touches
raises an error that says q7 does not provide it. The ops run on CPU tensors:
`import torch_xla` raises an ImportError that says how to adapt the script.
"""

import importlib.util
import os
import runpy
import sys
import types

PROVIDED = "torch_neuronx.xla_impl.custom_op"


class _Stand_in(types.ModuleType):
    """A torch_neuronx module that has only what q7 provides."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError(
            f"{self.__name__}.{attr} is not provided by q7, which stands in only for {PROVIDED} "
            "(install AWS's torch-neuronx on a Neuron machine for the rest)"
        )


class _Missing_submodules:
    """Meta-path finder: torch_neuronx submodules q7 lacks fail with a q7 message."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname.startswith("torch_neuronx.") and fullname not in sys.modules:
            raise ModuleNotFoundError(
                f"{fullname} is not provided by q7, which stands in only for {PROVIDED} "
                "(install AWS's torch-neuronx on a Neuron machine for the rest)",
                name=fullname,
            )
        return None


NO_XLA = (
    "torch_xla is not available under q7.neuronx: q7 runs Neuron custom ops on CPU tensors in its "
    "simulator, with no XLA device. Adapt the script to the CPU: torch.device('cpu') for xm.xla_device() "
    "(and .to(device) as before), optimizer.step() for xm.optimizer_step(optimizer), no xm.mark_step(), "
    "torch.save for xm.save (docs/PYTORCH.md: the vendor's training sample on CPU)"
)


class _No_xla:
    """Meta-path finder: torch_xla and its submodules fail with q7's advice."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname == "torch_xla" or fullname.startswith("torch_xla."):
            raise ModuleNotFoundError(NO_XLA, name=fullname)
        return None


def install():
    """Puts q7's stand-in torch_neuronx in sys.modules, unless the real one exists."""
    if "torch_neuronx" in sys.modules or importlib.util.find_spec("torch_neuronx") is not None:
        return False
    from q7 import custom_op

    top = _Stand_in("torch_neuronx", "q7's stand-in for torch_neuronx (custom ops only)")
    xla_impl = _Stand_in("torch_neuronx.xla_impl")
    top.__path__ = []  # a package, so `import torch_neuronx.xla_impl` works
    xla_impl.__path__ = []
    top.xla_impl = xla_impl
    xla_impl.custom_op = custom_op
    sys.modules["torch_neuronx"] = top
    sys.modules["torch_neuronx.xla_impl"] = xla_impl
    sys.modules[PROVIDED] = custom_op
    sys.meta_path.insert(0, _Missing_submodules)
    if "torch_xla" not in sys.modules and importlib.util.find_spec("torch_xla") is None:
        sys.meta_path.insert(0, _No_xla)
    return True


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m q7.neuronx SCRIPT [ARGS...]\n\n" + __doc__.split("\n", 2)[2].strip())
        return 0 if argv else 2
    script = argv[0]
    if not os.path.isfile(script):
        print(f"q7.neuronx: {script}: no such script", file=sys.stderr)
        return 2
    install()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
