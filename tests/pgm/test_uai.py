"""The UAI model format: round trips and line-numbered errors."""

from __future__ import annotations

import doctest
import gzip
import io
import itertools

import networkx as nx
import numpy as np
import pytest

import kernelkit.pgm.uai as uai
from kernelkit.pgm import DiscreteModel, ising
from kernelkit.pgm.uai import UAIFormatError, read_uai, write_uai


def test_doctests():
    assert doctest.testmod(uai).failed == 0


def assignments(m):
    return np.array(list(itertools.product(*[range(c) for c in m.cardinalities])))


def test_round_trip_keeps_every_score(tmp_path):
    rng = np.random.RandomState(0)
    m = DiscreteModel(
        [2, 3, 2, 4],
        [
            ((0,), rng.normal(size=2)),
            ((1, 3), rng.normal(size=(3, 4))),
            ((2, 0, 1), rng.normal(size=(2, 2, 3))),
            ((3, 2), [[0.0, -np.inf], [0.7, 1.1], [-0.7, -np.inf], [0.0, 0.0]]),
        ],
    )
    path = tmp_path / "m.uai"
    write_uai(m, path)
    back = read_uai(path)
    X = assignments(m)
    np.testing.assert_allclose(back.score(X), m.score(X), rtol=1e-14)
    assert [f.scope for f in back.factors] == [f.scope for f in m.factors]


def test_ising_round_trip_and_last_variable_fastest():
    m = ising(nx.cycle_graph(4), fields=0.3, couplings=[1.0, -1.0, 0.5, 2.0])
    buf = io.StringIO()
    write_uai(m, buf)
    back = read_uai(io.StringIO(buf.getvalue()))
    X = assignments(m)
    np.testing.assert_allclose(back.score(X), m.score(X), rtol=1e-14)
    # the table order: the last variable of the scope changes fastest
    text = "MARKOV\n2\n2 3\n1\n2 0 1\n6\n1 2 3 4 5 6\n"
    t = np.exp(read_uai(io.StringIO(text)).factors[0].table)
    np.testing.assert_allclose(t, [[1, 2, 3], [4, 5, 6]])


def test_bayes_networks_and_split_lines_are_read():
    text = "BAYES\n2\n2 2\n2\n1 0\n2 0 1\n\n2\n0.3\n0.7\n4\n0.9 0.1\n0.2 0.8\n"
    m = read_uai(io.StringIO(text))
    probs = np.exp(m.score(assignments(m)))
    np.testing.assert_allclose(probs, [0.27, 0.03, 0.14, 0.56])
    assert probs.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("MARKOF\n1\n2\n0\n", r"line 1: expected MARKOV or BAYES, got 'MARKOF'"),
        ("MARKOV\nx\n", r"line 2: expected the number of variables \(an integer\), got 'x'"),
        ("MARKOV\n2\n2 0\n0\n", r"line 3: expected the cardinality of variable 1 >= 1, got 0"),
        ("MARKOV\n2\n2 2\n1\n2 0 5\n4\n1 1 1 1\n", r"line 5: factor 0: variable 5 is not in 0..1"),
        ("MARKOV\n2\n2 2\n1\n2 1 1\n4\n1 1 1 1\n", r"line 5: factor 0: variable 1 appears twice"),
        (
            "MARKOV\n2\n2 2\n1\n2 0 1\n3\n1 1 1\n",
            r"line 6: factor 0 has scope \(0, 1\).*4 entries, but the file says 3",
        ),
        (
            "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 1\n1 -2\n",
            r"line 8: factor 0: entries must be finite and >= 0.*-2",
        ),
        (
            "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 1\n1 abc\n",
            r"line 8: factor 0: expected a number, got 'abc'",
        ),
        (
            "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 1\n",
            r"line 7: factor 0: expected 4 entries, the file has only 2",
        ),
        ("MARKOV\n2\n2 2\n", r"the file ends where the number of factors was expected"),
        (
            "MARKOV\n1\n2\n1\n1 0\n2\n1 1\n7\n",
            r"line 8: unexpected token '7' after the last factor",
        ),
    ],
)
def test_malformed_files_name_the_line(text, match):
    with pytest.raises(UAIFormatError, match=match):
        read_uai(io.StringIO(text))


def test_zero_potentials_are_hard_constraints():
    m = read_uai(io.StringIO("MARKOV\n1\n2\n1\n1 0\n2\n0 1\n"))
    assert m.score([[0], [1]]).tolist() == [-np.inf, 0.0]


def test_write_needs_a_model():
    with pytest.raises(TypeError, match="DiscreteModel"):
        write_uai("not a model", io.StringIO())


# -- compressed files, byte order marks and comments --------------------------------------------

PLAIN = "MARKOV\n3\n2 2 3\n2\n2 0 1\n2 1 2\n\n4\n1 2 3 4\n6\n0.5 0 1.5 2 2.5 3\n"


def same_model(a, b):
    assert a.cardinalities.tolist() == b.cardinalities.tolist()
    assert [f.scope for f in a.factors] == [f.scope for f in b.factors]
    for fa, fb in zip(a.factors, b.factors, strict=True):
        np.testing.assert_array_equal(fa.table, fb.table)


@pytest.mark.parametrize("name", ["m.uai.gz", "m.uai"])  # gzip is recognised by content
def test_gzipped_files_are_read(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(PLAIN.encode()))
    same_model(read_uai(path), read_uai(io.StringIO(PLAIN)))


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "bom.uai"
    path.write_bytes(PLAIN.encode("utf-8-sig"))
    plain = read_uai(io.StringIO(PLAIN))
    same_model(read_uai(path), plain)
    same_model(read_uai(io.StringIO("\ufeff" + PLAIN)), plain)
    gz = tmp_path / "bom.uai.gz"
    gz.write_bytes(gzip.compress(PLAIN.encode("utf-8-sig")))
    same_model(read_uai(gz), plain)


def test_comment_lines_are_skipped():
    lines = PLAIN.splitlines()
    commented = ["c", "c comments: an example UAI file", "# written by pgmpy"]
    for k, line in enumerate(lines):
        commented.append(line)
        commented.append(["c after a line", "   # indented", "\tc", "#"][k % 4])
    same_model(read_uai(io.StringIO("\n".join(commented))), read_uai(io.StringIO(PLAIN)))


def test_comment_lines_count_in_error_line_numbers():
    text = "c a comment\n# another\nMARKOV\n2\n2 2\nc\n1\n2 0 5\n4\n1 1 1 1\n"
    with pytest.raises(UAIFormatError, match=r"line 8: factor 0: variable 5 is not in 0\.\.1"):
        read_uai(io.StringIO(text))
    with pytest.raises(UAIFormatError, match=r"line 4: .*number of variables.*'x'"):
        read_uai(io.StringIO("MARKOV\r\nc\r\n\r\nx\r\n"))


def test_only_a_first_token_c_makes_a_comment():
    # "cx" is not the comment marker: it is read, and refused, as a token
    with pytest.raises(UAIFormatError, match=r"line 1: expected MARKOV or BAYES, got 'cx'"):
        read_uai(io.StringIO("cx\nMARKOV\n1\n2\n0\n"))
    with pytest.raises(UAIFormatError, match=r"line 6: .*expected a number, got 'c'"):
        read_uai(io.StringIO("MARKOV\n1\n2\n1\n1 0\n2 1 c\n"))


def test_a_file_neither_text_nor_gzip_is_named(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"MARKOV\n1\n\xff\xfe\x00\x01")
    with pytest.raises(UAIFormatError, match=r"model\.bin, line 3: expected UTF-8 text or a gzip"):
        read_uai(path)


def test_a_corrupt_gzip_file_is_named(tmp_path):
    path = tmp_path / "model.uai.gz"
    path.write_bytes(gzip.compress(PLAIN.encode())[:20])
    with pytest.raises(UAIFormatError, match=r"model\.uai\.gz: starts like a gzip file"):
        read_uai(path)
