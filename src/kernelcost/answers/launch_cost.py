"""Stage: what a step pays to launch its kernels, kept apart from the kernels' time
(`kernelcost model --launch eager|graphs`).

- eager (the default, as `kernelcost model` charged before the option): every kernel is its
  own host launch and pays the machine file's `launch_overhead_s` (4 us on the shipped
  NVIDIA machines, each with its source). No framework (Python, PyTorch dispatch) overhead is
  added: the project holds no sourced figure for it.
- graphs: a decode step is replayed from a captured CUDA graph, as vLLM runs decode unless
  told otherwise (vllm-project/vllm, vllm/entrypoints/llm.py, class LLM, docstring:
  "enforce_eager: Whether to enforce eager execution. If True, we will disable CUDA graph
  and always execute the model in eager mode. If False, we will use CUDA graph and eager
  execution in hybrid.", default False; `max_seq_len_to_capture`: "Maximum sequence len
  covered by CUDA graphs. When a sequence has context length larger than this, we fall back
  to eager mode."): the step pays one launch (the graph's, at the machine's figure) and a gap
  between consecutive kernels inside the graph, GRAPH_KERNEL_GAP_S each. The prefill (and
  every step of a chunked prefill) runs eager in both modes: its shapes change with the
  prompt, and engines capture decode batches."""

from __future__ import annotations

from ..base.kinds import LaunchMode

# per kernel, inside a replayed CUDA graph
GRAPH_KERNEL_GAP_S = 490e-6 / 401
GRAPH_KERNEL_GAP_SOURCE = (
    "Jinyang Su, “pegainfer (4): CUDA Graph (Part 2)”, susun's Blog, 2026-03-01, "
    "https://susun-blog.com/blog/pegainfer-4-cuda-graph-part2, section “After: Performance "
    "Comparison”: a decode step of Qwen3-4B (401 kernels, bf16, RTX 5070 Ti, CUDA 13.0) "
    "replayed from a CUDA graph, nsys --cuda-graph-trace=node, median of 24 steps: “gap median "
    "(μs) ... 490” between the kernels (1,538 eager with allocations, 687 eager without); "
    "490 us / 401 kernels = 1.22 us a kernel. An upper bound: the window from one argmax "
    "kernel to the next also holds the host's turn between two replays; another GPU than "
    "the shipped machines, one figure for all of them; UNCERTAIN")
WORDS = {"eager": LaunchMode.EAGER, "graphs": LaunchMode.GRAPH}
WORD_OF = {mode: word for word, mode in WORDS.items()}


def graph_gap(mode: LaunchMode) -> float | None:
    """The gap a kernel pays inside a graph; None: each kernel launched on its own."""
    return GRAPH_KERNEL_GAP_S if mode == LaunchMode.GRAPH else None
