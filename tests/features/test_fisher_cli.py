"""``kernelkit fisher-mnist``: the stage lines, the accuracy line, usage errors (exit 2)
and agreement with the Python functions it calls.

Dense SIFT of the 2000 ``--small`` digits takes a few seconds; the runs here share one
extraction through :func:`cached_descriptors` (the descriptors of the same images with
the same descriptor are the same), so only the first run pays for it.
"""

from __future__ import annotations

import argparse
import hashlib
import re

import numpy as np
import pytest

from kernelkit import cli
from kernelkit.features import cli as features_cli
from kernelkit.features import descriptors

_DURATION = r"\d+(\.\d+)? (ms|s)"
_CACHE: dict[tuple[str, str], list[np.ndarray]] = {}
_extract = descriptors.extract_descriptors


def _memoised_extract(images, descriptor=None, **kwargs):
    images = np.asarray(images)
    key = (hashlib.sha256(images.tobytes()).hexdigest() + str(images.shape), repr(descriptor))
    if key not in _CACHE:
        _CACHE[key] = _extract(images, descriptor, **kwargs)
    return [d.copy() for d in _CACHE[key]]


@pytest.fixture
def cached_descriptors(monkeypatch):
    """The CLI imports ``extract_descriptors`` inside its handler: patched here to reuse
    the descriptors of images it has already described in this test module."""
    monkeypatch.setattr(descriptors, "extract_descriptors", _memoised_extract)


def run(capsys, *argv):
    """``kernelkit fisher-mnist ARGV`` through ``kernelkit.cli.main``."""
    code = cli.main(["fisher-mnist", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_register_adds_fisher_mnist_to_any_subparsers():
    parser = argparse.ArgumentParser(prog="kernelkit")
    features_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["fisher-mnist", "-k", "4", "-f", "0", "--small"])
    assert args.command == "fisher-mnist" and callable(args.handler)
    assert (args.n_components, args.pca_components, args.small) == (4, 0, True)
    defaults = parser.parse_args(["fisher-mnist"])
    assert (defaults.n_components, defaults.pca_components, defaults.C) == (16, 16, 1.0)
    assert defaults.keypoints == "dense" and defaults.seed == 0
    assert defaults.max_gmm_sets is None and defaults.n_jobs is None
    assert not defaults.small and not defaults.no_power_normalize


def test_fisher_mnist_is_found_by_the_kernelkit_command():
    assert "kernelkit.features.cli" in cli.area_cli_modules()
    assert "fisher-mnist" in cli.build_parser().format_help()


def test_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["fisher-mnist", "-h"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for option in (
        "-k N_COMPONENTS, --n-components N_COMPONENTS",
        "-f PCA_COMPONENTS, --pca-components PCA_COMPONENTS",
        "--small",
        "--C C",
        "--keypoints {dense,detect}",
        "--no-power-normalize",
        "--max-gmm-sets MAX_GMM_SETS",
        "--seed SEED",
        "--n-jobs N_JOBS",
    ):
        assert option in text, option
    assert "1..128; 0: no PCA" in text


def test_help_shows_the_accuracy_line_with_one_percent_sign(capsys):
    with pytest.raises(SystemExit):
        cli.main(["fisher-mnist", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert "'accuracy NN.N%'" in text


def test_small_run_prints_each_stage_and_the_accuracy(capsys, cached_descriptors):
    code, out, err = run(capsys, "-k", "4", "-f", "8", "--small")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("fisher-mnist: 1600 training and 400 test images (--small")
    assert "stratified, seed 0" in lines[0]
    stages = ["load and split", "descriptors", "PCA + GMM fit", "Fisher vectors"]
    stages += ["train 10 SVMs", "predict"]
    assert len(lines) == 1 + len(stages) + 1
    for line, stage in zip(lines[1:-1], stages, strict=True):
        assert re.match(rf"^  {re.escape(stage)} +{_DURATION}\b", line), line
    assert "dense SIFT, 49.0 per image (min 49), D=128" in lines[2]
    assert lines[3].endswith("K=4, f=8")
    assert "length 64, power normalisation on, L2" in lines[4]
    assert lines[5].endswith("one-vs-rest LinearSVC, C=1")
    assert re.fullmatch(r"accuracy \d+\.\d%", lines[-1]), lines[-1]
    accuracy = float(lines[-1].split()[1].rstrip("%"))
    assert 50 < accuracy <= 100  # chance: 10 %; measured 91.5 %


def test_cli_accuracy_agrees_with_the_python_pipeline(capsys, cached_descriptors):
    # no PCA (-f 0), no power normalisation, one digit for the GMM, another C: the CLI's
    # number is classify_fisher_vectors on the --small split (K=1 and one GMM set keep
    # the 128-dimensional fit cheap)
    from kernelkit.datasets import load_mnist
    from kernelkit.features.image_classification import classify_fisher_vectors, split_images

    argv = ["-k", "1", "-f", "0", "--small", "--no-power-normalize", "--C", "0.5"]
    code, out, _ = run(capsys, *argv, "--max-gmm-sets", "1")
    assert code == 0
    assert "K=1, f=128" in out and "length 256, power normalisation off, L2" in out
    assert "C=0.5" in out
    images, labels = load_mnist()
    train, test = split_images(labels, small=True, random_state=0)
    used = images[np.concatenate([train, test])]
    sets = descriptors.extract_descriptors(used, descriptors.SIFTDescriptors(keypoints="dense"))
    result = classify_fisher_vectors(
        sets[: len(train)],
        labels[train],
        sets[len(train) :],
        labels[test],
        n_components=1,
        pca_components=None,
        power_normalize=False,
        C=0.5,
        max_gmm_sets=1,
        random_state=0,
    )
    assert out.splitlines()[-1] == f"accuracy {100 * result.accuracy:.1f}%"
    assert result.accuracy > 0.3  # chance: 10 %


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-k", "0"], "-k/--n-components must be >= 1, got 0"),
        (["-k", "-3"], "-k/--n-components must be >= 1, got -3"),
        (["-f", "200"], "-f/--pca-components must be in 0..128"),
        (["-f", "-1"], "-f/--pca-components must be in 0..128"),
        (["-f", "129"], "got 129"),
        (["--C", "0"], "--C must be finite and > 0, got 0.0"),
        (["--C", "-1"], "--C"),
        (["--C", "nan"], "--C"),
        (["--C", "inf"], "--C"),
        (["--n-jobs", "0"], "--n-jobs must be -1 or a positive integer, got 0"),
        (["--n-jobs", "-2"], "--n-jobs"),
        (["--max-gmm-sets", "0"], "--max-gmm-sets must be >= 1, got 0"),
        (["--seed", "-1"], "--seed"),
        (["--seed", str(2**32)], "--seed"),
    ],
)
def test_bad_numbers_are_usage_errors(capsys, argv, message):
    # checked before anything is loaded: nothing on stdout, one line on stderr, exit 2
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("kernelkit: error:") and len(err.strip().splitlines()) == 1
    assert message in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-k", "2.5"], "argument -k/--n-components: invalid int value"),
        (["-f", "x"], "argument -f/--pca-components: invalid int value"),
        (["--keypoints", "orb"], "argument --keypoints: invalid choice"),
        (["--iterations", "3"], "unrecognized arguments: --iterations"),
    ],
)
def test_malformed_flags_are_argparse_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        run(capsys, *argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_more_components_than_descriptors_is_a_usage_error(capsys, cached_descriptors):
    # 1600 training digits x 49 dense keypoints = 78400 descriptors: the encoder's message
    code, out, err = run(capsys, "-k", "100000", "--small")
    assert code == 2
    assert err.startswith("kernelkit: error:") and len(err.strip().splitlines()) == 1
    assert "n_components=100000 is larger than the number of descriptors in X (78400)" in err
    assert out.startswith("fisher-mnist: 1600 training") and "accuracy" not in out


def test_more_pca_components_than_gmm_descriptors_is_a_usage_error(capsys, cached_descriptors):
    # one training digit for the PCA: 49 descriptors, fewer than f=64
    code, _, err = run(capsys, "-f", "64", "--max-gmm-sets", "1", "--small")
    assert code == 2
    assert "pca_components=64 must be <= the number of descriptors in X (49)" in err


@pytest.mark.slow
def test_detected_keypoints_run(capsys):
    code, out, err = run(capsys, "--keypoints", "detect", "-k", "4", "-f", "8", "--small")
    assert code == 0 and err == ""
    assert "detect SIFT" in out and "D=128" in out
    last = out.strip().splitlines()[-1]
    assert re.fullmatch(r"accuracy \d+\.\d%", last), last
    assert float(last.split()[1].rstrip("%")) > 30  # chance 10 %; measured 69.8 % (upscale 2)
