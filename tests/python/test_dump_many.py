"""dump_many: the batch engine over many dump_graph calls, GIL released, results
byte for byte those of sequential dump_graph calls, in job order."""
import json
import sys
import threading
import time

import numpy as np
import pytest

import mgedump


def make_jobs():
    jobs = []
    for i in range(12):
        g = mgedump.Graph()
        x = g.input(f"x{i}", (1, 4))
        w = g.param(np.full((4,), i, dtype=np.float32), f"w{i}")
        y = g.op("Elemwise", x, w, mode="ADD" if i % 2 else "MUL", name=f"y{i}")
        z = g.op("Elemwise", y, mode="SQUARE")
        options = [{}, {"dump_format": "FBS"}, {"keep_var_name": 2, "keep_param_name": True},
                   {"dump_format": "FBS", "compat_older_version": "8.14"}, {"no_change_graph": True, "model_version": 1},
                   {"metadata": {"is_valid": True, "user_info": b"job"}}][i % 6]
        jobs.append(dict(options, output_vars={"out": z} if i % 3 else [z, y]))
    return jobs


@pytest.mark.parametrize("threads", [1, 2, None])
def test_results_equal_sequential_dump_graph_in_job_order(threads):
    jobs = make_jobs()
    expected = [mgedump.dump_graph(**job) for job in jobs]
    results = mgedump.dump_many(jobs, threads=threads)
    assert len(results) == len(jobs)
    for (data, result), (want_data, want_result) in zip(results, expected):
        assert data == want_data
        assert result == want_result
    assert len({r[0] for r in results}) == len(jobs)  # every job distinct, so order is checked


def test_strip_info_files_are_written_in_job_order(tmp_path):
    jobs = make_jobs()[:6]
    parallel, sequential = tmp_path / "parallel.json", tmp_path / "sequential.json"
    for job in jobs:
        mgedump.dump_graph(**dict(job, strip_info_file=str(sequential), append_json=True))
    mgedump.dump_many([dict(job, strip_info_file=str(parallel), append_json=True) for job in jobs], threads=2)
    assert parallel.read_text() == sequential.read_text()
    assert "SQUARE" in json.loads(parallel.read_text())["elemwise_modes"]


def test_file_object_strip_info_works_in_dump_many(tmp_path):
    path = tmp_path / "strip.json"
    with open(path, "w+") as f:
        (_, result), = mgedump.dump_many([dict(make_jobs()[1], strip_info_file=f)])
    assert json.loads(path.read_text())["hash"] == result.content_hash != 0


def test_an_invalid_option_raises_value_error_naming_the_job():
    jobs = make_jobs()
    jobs[3] = dict(jobs[3], keep_var_name=7)
    with pytest.raises(ValueError, match="^job 3: keep_var_name must be 0, 1 or 2, got 7$"):
        mgedump.dump_many(jobs)


def test_a_failing_graph_raises_serialization_error_naming_the_job():
    jobs = make_jobs()
    g = mgedump.Graph()
    a, b = g.input("same", (1,)), g.input("same", (1,))  # duplicate input names
    jobs.insert(5, {"output_vars": [g.op("Elemwise", a, b, mode="ADD")]})
    with pytest.raises(mgedump.SerializationError, match="^job 5: .*same"):
        mgedump.dump_many(jobs, threads=2)


def test_unknown_job_key_is_a_type_error():
    with pytest.raises(TypeError, match="job 0: unknown dump_graph argument 'keep_names'"):
        mgedump.dump_many([dict(make_jobs()[0], keep_names=True)])


def test_missing_output_vars_and_bad_threads_are_value_errors():
    with pytest.raises(ValueError, match="job 0: output_vars is required"):
        mgedump.dump_many([{"dump_format": "FBS"}])
    with pytest.raises(ValueError, match="threads must be None or 1..4096, got 0"):
        mgedump.dump_many(make_jobs(), threads=0)


def test_no_jobs_gives_no_results():
    assert mgedump.dump_many([]) == []


def test_other_python_threads_run_while_the_engine_works():
    # Long operator chains keep the C++ side busy (rewrites, planning, FlatBuffers).
    # With a huge switch interval a thread gives up the GIL only voluntarily, so this
    # thread, sleeping 1 ms between ticks, ticks inside the dump_many call only if
    # the call released the GIL; with the GIL held it could tick at most once per
    # job (the bytes copy also runs without the GIL). Two long jobs keep that bound
    # tiny while the call still lasts many milliseconds on a fast, idle machine.
    jobs = []
    for i in range(2):
        g = mgedump.Graph()
        v = g.input(f"x{i}", (4,))
        for _ in range(25000):
            v = g.op("Elemwise", v, mode="SQUARE")
        jobs.append({"output_vars": [v], "dump_format": "FBS"})
    done = threading.Event()
    window = {}

    def run():
        window["start"] = time.perf_counter()
        mgedump.dump_many(jobs, threads=2)
        window["end"] = time.perf_counter()
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(30.0)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        ticks = []
        while not done.is_set():
            time.sleep(0.001)
            ticks.append(time.perf_counter())
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    inside = [t for t in ticks if window["start"] < t < window["end"]]
    assert len(inside) > 5 * len(jobs), (len(inside), window["end"] - window["start"])


def test_a_large_dump_graph_written_into_its_bytes_object_equals_the_copied_dump_many_result():
    # Over 8 MiB dump_graph's engine streams the file straight into the bytes
    # object it returns; dump_many copies the finished file. Same bytes, weights
    # in place, and the NaN still warned about.
    g = mgedump.Graph()
    x = g.input("x", (1, 3_000_000))
    w = np.random.default_rng(3).standard_normal(3_000_000).astype(np.float32)
    w[12345] = np.nan
    y = g.op("Elemwise", x, g.param(w, "w"), mode="MUL")
    for fmt in ("FBS_V2", "FBS"):
        with pytest.warns(RuntimeWarning, match="1 non-finite"):
            data, result = mgedump.dump_graph([y], dump_format=fmt)
        with pytest.warns(RuntimeWarning, match="1 non-finite"):
            [(copied, copied_result)] = mgedump.dump_many([{"output_vars": [y], "dump_format": fmt}])
        assert len(data) == result.tot_bytes > 12_000_000
        assert data == copied
        assert result == copied_result
        assert data.find(w.tobytes()) > 0
