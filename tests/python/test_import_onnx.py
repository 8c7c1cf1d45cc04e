"""import_onnx: an ONNX model (built here with the onnx package) becomes a graph that
dump_graph takes, with the ONNX weights as its values; unsupported nodes are errors."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper, save

import mgedump


def conv_relu_model(path, op_type="Relu"):
    w = np.arange(4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3) / 100
    b = np.array([0.5, -0.5, 1.0, 2.0], dtype=np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node(op_type, ["c"], ["y"], name="act")],
        "net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        [numpy_helper.from_array(w, "conv.w"), numpy_helper.from_array(b, "conv.b")])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return w, b


def test_an_onnx_conv_becomes_conv_bias_with_the_onnx_weights(tmp_path):
    w, b = conv_relu_model(tmp_path / "net.onnx")
    graph, by_name, outputs, metadata = mgedump.import_onnx(tmp_path / "net.onnx", params_as_shared=True)
    types = [op.type for op in graph.operators]
    assert types.count("ConvBias") == 1
    assert types.count("Host2DeviceCopy") == 1
    assert list(by_name) == ["y"] and len(outputs) == 1
    assert metadata == mgedump.Metadata()
    params = {op.outputs[0].name: op.outputs[0].value for op in graph.operators if op.type == "SharedDeviceTensor"}
    np.testing.assert_array_equal(params["conv.w"], w)
    np.testing.assert_array_equal(params["conv.b"].reshape(-1), b)

    data, info = mgedump.dump_graph(outputs, keep_param_name=True, dump_format="FBS")
    assert sorted(info.params) == ["conv.b", "conv.w"]
    assert info.inputs == ["x"]
    assert info.tensor_value_bytes >= w.nbytes + b.nbytes
    again = mgedump.load_graph(data).graph
    assert [op.type for op in again.operators] == types


def test_without_params_as_shared_initializers_are_constants(tmp_path):
    conv_relu_model(tmp_path / "net.onnx")
    graph = mgedump.import_onnx(str(tmp_path / "net.onnx")).graph
    types = [op.type for op in graph.operators]
    assert "SharedDeviceTensor" not in types
    assert "ImmutableTensor" in types


def test_an_unsupported_node_is_an_error_naming_it(tmp_path):
    conv_relu_model(tmp_path / "bad.onnx", op_type="StringNormalizer")
    with pytest.raises(mgedump.SerializationError, match=r"StringNormalizer \(1 node, first 'act'\)"):
        mgedump.import_onnx(tmp_path / "bad.onnx")


def test_a_missing_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(mgedump.SerializationError, match="nope.onnx"):
        mgedump.import_onnx(tmp_path / "nope.onnx")


def test_input_shapes_fix_the_symbolic_dims_of_a_dynamic_axes_export(tmp_path):
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            return y.view(y.size(0), -1)

    torch.manual_seed(0)
    net = Net().eval()
    path = tmp_path / "dynamic.onnx"
    torch.onnx.export(net, torch.randn(1, 3, 6, 6), str(path), opset_version=13, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch", 2: "h", 3: "w"}, "y": {0: "batch"}})
    with pytest.raises(mgedump.SerializationError, match=r"graph input 'x': dimension 0 \('batch'\) is symbolic"):
        mgedump.import_onnx(path)

    result = mgedump.import_onnx(path, input_shapes={"x": (2, 3, 5, 7)})
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)
    (got,) = mgedump.run(result.output_vars_list, {"x": x}).values()
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    assert got.shape == (2, 4 * 5 * 7)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    with pytest.raises(ValueError, match="not a graph input"):
        mgedump.import_onnx(path, input_shapes={"x": [1, 3, 4, 4], "image": [1]})
    with pytest.raises(ValueError, match="has 4 at axis 1, the model declares 3"):
        mgedump.import_onnx(path, input_shapes={"x": [1, 4, 4, 4]})
