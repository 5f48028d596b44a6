"""Local image descriptors: SIFT (OpenCV), dense patches, extract_descriptors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from kernelkit.datasets import load_mnist
from kernelkit.features.descriptors import DensePatches, SIFTDescriptors, extract_descriptors


@pytest.fixture(scope="module")
def digits() -> np.ndarray:
    images, _ = load_mnist()
    return images[:12]


def _blank(shape: tuple[int, int] = (28, 28)) -> np.ndarray:
    return np.zeros(shape, dtype=np.uint8)


# ---------------------------------------------------------------- SIFT
def test_sift_dense_shape_dtype_and_determinism(digits: np.ndarray) -> None:
    pytest.importorskip("cv2")
    sift = SIFTDescriptors()
    d = sift(digits[0])
    assert d.shape == (49, 128)
    assert d.dtype == np.float64
    assert np.isfinite(d).all()
    np.testing.assert_array_equal(d, sift(digits[0].copy()))
    assert not np.array_equal(d, sift(digits[1]))


def test_dense_grid_positions() -> None:
    sift = SIFTDescriptors()
    grid = sift.grid((28, 28))
    axis = [6, 13, 20, 27, 34, 41, 48]
    assert grid.shape == (49, 2)
    np.testing.assert_array_equal(grid[:7, 0], axis)  # x runs fastest
    np.testing.assert_array_equal(grid[::7, 1], axis)
    # rectangular images and other upscales / steps
    grid = SIFTDescriptors(upscale=1, step=4).grid((20, 12))
    np.testing.assert_array_equal(np.unique(grid[:, 0]), [4, 8])
    np.testing.assert_array_equal(np.unique(grid[:, 1]), [4, 8, 12, 16])
    np.testing.assert_array_equal(sift.grid((28, 28)), sift.grid((28, 28)))


def test_sift_dense_matches_opencv_on_the_grid(digits: np.ndarray) -> None:
    cv2 = pytest.importorskip("cv2")
    sift = SIFTDescriptors(upscale=3, step=9, size=10.0)
    image = digits[3]
    big = cv2.resize(image, (84, 84), interpolation=cv2.INTER_LINEAR)
    kps = [cv2.KeyPoint(float(x), float(y), 10.0, 0.0) for x, y in sift.grid((28, 28))]
    _, expected = cv2.SIFT_create().compute(big, kps)
    np.testing.assert_array_equal(sift(image), expected.astype(np.float64))


def test_sift_float_image_equals_uint8(digits: np.ndarray) -> None:
    pytest.importorskip("cv2")
    for sift in (SIFTDescriptors(), SIFTDescriptors(keypoints="detect", upscale=3)):
        image = digits[2]
        np.testing.assert_array_equal(sift(image / 255.0), sift(image))
        np.testing.assert_array_equal(sift((image / 255.0).astype(np.float32)), sift(image))
        np.testing.assert_array_equal(sift(image.astype(np.int64)), sift(image))
        # floats off the 1/255 grid are rounded to the nearest level, not truncated
        off_grid = np.clip((image - 0.4) / 255.0, 0.0, 1.0)
        np.testing.assert_array_equal(sift(off_grid), sift(image))
    binary = digits[2] > 127
    sift = SIFTDescriptors()
    np.testing.assert_array_equal(sift(binary), sift(binary.astype(np.uint8) * 255))


def test_sift_detect_finds_keypoints(digits: np.ndarray) -> None:
    pytest.importorskip("cv2")
    sift = SIFTDescriptors(keypoints="detect", upscale=3, min_keypoints=0)
    counts = [len(sift(image)) for image in digits]
    assert min(counts) > 0
    d = sift(digits[0])
    assert d.shape[1] == 128 and d.dtype == np.float64
    # not the grid: the detector's keypoints differ from the dense ones
    assert not np.array_equal(d, SIFTDescriptors(upscale=3)(digits[0]))


def test_sift_detect_falls_back_to_the_grid_on_a_blank_image() -> None:
    pytest.importorskip("cv2")
    blank = _blank()
    dense = SIFTDescriptors()(blank)
    fallback = SIFTDescriptors(keypoints="detect")(blank)
    assert fallback.shape == (49, 128)
    np.testing.assert_array_equal(fallback, dense)
    # near-blank: one dot, too few keypoints -> grid
    dot = blank.copy()
    dot[14, 14] = 255
    sift = SIFTDescriptors(keypoints="detect", min_keypoints=50)
    np.testing.assert_array_equal(sift(dot), SIFTDescriptors()(dot))


def test_sift_detect_without_fallback_gives_empty_array() -> None:
    pytest.importorskip("cv2")
    d = SIFTDescriptors(keypoints="detect", min_keypoints=0)(_blank())
    assert d.shape == (0, 128)
    assert d.dtype == np.float64


def test_sift_blank_dense_image_is_finite() -> None:
    pytest.importorskip("cv2")
    d = SIFTDescriptors()(_blank())
    assert d.shape == (49, 128)
    assert np.isfinite(d).all()


@pytest.mark.parametrize(
    ("image", "error", "match"),
    [
        (np.zeros(28), ValueError, r"image must be a 2-D grey image of shape \(H, W\)"),
        (np.zeros((28, 28, 3), np.uint8), ValueError, "convert it to grey"),
        (np.zeros((2, 28, 28)), ValueError, r"2-D grey image.*\(2, 28, 28\)"),
        (np.full((28, 28), 1.5), ValueError, r"image of float dtype must have values in \[0, 1\]"),
        (np.full((28, 28), -0.1), ValueError, r"\[0, 1\]"),
        (np.full((28, 28), np.nan), ValueError, "image contains NaN"),
        (np.full((28, 28), 300), ValueError, r"image of integer dtype .* \[0, 255\]"),
        (np.zeros((28, 28), complex), TypeError, "image must be real-valued"),
        (np.full((28, 28), "a"), TypeError, "image must be an array of numbers"),
        (np.empty((28, 28), object), TypeError, "image must be an array of numbers"),
        ("image", TypeError, "image must be a 2-D array of numbers"),
        (None, TypeError, "image must be a 2-D array of numbers"),
        (np.zeros((0, 28)), ValueError, "image is empty"),
        (np.zeros((4, 28)), ValueError, "too small for a keypoint grid"),
    ],
)
def test_sift_bad_images(image: object, error: type[Exception], match: str) -> None:
    pytest.importorskip("cv2")
    with pytest.raises(error, match=match):
        SIFTDescriptors()(image)


def test_sift_too_small_also_for_detect() -> None:
    pytest.importorskip("cv2")
    with pytest.raises(ValueError, match="each side must be at least 10 pixels"):
        SIFTDescriptors(keypoints="detect", upscale=1)(_blank((9, 30)))
    # exactly the minimum gives one row of keypoints
    assert SIFTDescriptors(upscale=1)(_blank((10, 10))).shape == (1, 128)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"keypoints": "grid"}, ValueError, "keypoints must be one of 'dense', 'detect'"),
        ({"upscale": 0}, ValueError, "upscale must be >= 1"),
        ({"upscale": 1.5}, TypeError, "upscale must be an integer"),
        ({"step": 0}, ValueError, "step must be >= 1"),
        ({"size": 0.0}, ValueError, "size must be > 0"),
        ({"size": "big"}, TypeError, "size must be a number"),
        ({"min_keypoints": -1}, ValueError, "min_keypoints must be >= 0"),
    ],
)
def test_sift_bad_parameters(kwargs: dict, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        SIFTDescriptors(**kwargs)


def test_sift_is_keyword_only_picklable_and_comparable() -> None:
    sift = SIFTDescriptors(keypoints="detect", upscale=3, step=5, size=8, min_keypoints=4)
    assert sift.size == 8  # stored unchanged
    assert repr(sift) == (
        "SIFTDescriptors(keypoints='detect', upscale=3, step=5, size=8, min_keypoints=4)"
    )
    copy = pickle.loads(pickle.dumps(sift))
    assert copy == sift and hash(copy) == hash(sift)
    assert copy != SIFTDescriptors()
    with pytest.raises(TypeError):
        SIFTDescriptors("dense")  # type: ignore[misc]


def test_sift_unpickled_gives_the_same_descriptors(digits: np.ndarray) -> None:
    pytest.importorskip("cv2")
    sift = SIFTDescriptors(keypoints="detect", upscale=3)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(sift))(digits[0]), sift(digits[0]))


# ---------------------------------------------------------------- dense patches
def _patches_brute_force(image: np.ndarray, size: int, step: int, normalize: bool) -> np.ndarray:
    img = image / 255.0 if image.dtype == np.uint8 else image.astype(np.float64)
    rows = []
    for top in range(0, img.shape[0] - size + 1, step):
        for left in range(0, img.shape[1] - size + 1, step):
            p = img[top : top + size, left : left + size].ravel().copy()
            if normalize:
                p -= p.mean()
                norm = np.sqrt(np.sum(p * p))
                p = p / norm if norm >= 1e-10 else np.zeros_like(p)
            rows.append(p)
    return np.array(rows)


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize(("size", "step"), [(7, 3), (5, 5), (4, 1), (28, 2)])
def test_dense_patches_against_brute_force(
    digits: np.ndarray, size: int, step: int, normalize: bool
) -> None:
    image = digits[5]
    got = DensePatches(size=size, step=step, normalize=normalize)(image)
    expected = _patches_brute_force(image, size, step, normalize)
    assert got.dtype == np.float64 and got.flags.c_contiguous
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_dense_patches_rectangular_and_float() -> None:
    rng = np.random.default_rng(0)
    image = rng.random((13, 20))
    got = DensePatches(size=3, step=4, normalize=True)(image)
    assert got.shape == (3 * 5, 9)
    np.testing.assert_allclose(got, _patches_brute_force(image, 3, 4, True), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0)
    uint8 = (rng.random((28, 28)) * 255).astype(np.uint8)
    np.testing.assert_array_equal(DensePatches()(uint8 / 255.0), DensePatches()(uint8))


def test_dense_patches_flat_patches_are_zero_not_nan() -> None:
    image = np.zeros((28, 28))
    image[:, 14:] = 0.7  # flat halves, an edge in the middle
    d = DensePatches(size=7, step=3)(image)
    assert np.isfinite(d).all()
    norms = np.linalg.norm(d, axis=1)
    assert np.all((norms == 0.0) | np.isclose(norms, 1.0))
    assert (norms == 0.0).sum() > 0 and np.isclose(norms, 1.0).sum() > 0
    np.testing.assert_array_equal(DensePatches()(np.ones((28, 28))), 0.0)


def test_dense_patches_bad_input() -> None:
    with pytest.raises(ValueError, match=r"smaller than the patch size=7"):
        DensePatches()(np.zeros((6, 28)))
    with pytest.raises(ValueError, match="image must be a 2-D grey image"):
        DensePatches()(np.zeros((28, 28, 3)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        DensePatches()(np.full((28, 28), 2.0))
    with pytest.raises(ValueError, match="size must be >= 1"):
        DensePatches(size=0)
    with pytest.raises(TypeError, match="step must be an integer"):
        DensePatches(step=2.0)
    with pytest.raises(TypeError, match="normalize must be a bool"):
        DensePatches(normalize=1)


def test_dense_patches_pickle_repr_eq() -> None:
    patches = DensePatches(size=5, step=2, normalize=False)
    assert repr(patches) == "DensePatches(size=5, step=2, normalize=False)"
    assert pickle.loads(pickle.dumps(patches)) == patches
    assert patches != DensePatches()


# ---------------------------------------------------------------- extract_descriptors
def test_extract_default_is_dense_sift(digits: np.ndarray) -> None:
    pytest.importorskip("cv2")
    sets = extract_descriptors(digits[:3])
    assert len(sets) == 3
    for image, d in zip(digits[:3], sets, strict=True):
        np.testing.assert_array_equal(d, SIFTDescriptors()(image))


@pytest.mark.parametrize("n_jobs", [2, 3, -1])
def test_extract_threads_give_the_same_result(digits: np.ndarray, n_jobs: int) -> None:
    pytest.importorskip("cv2")
    for descriptor in (SIFTDescriptors(keypoints="detect", upscale=3), DensePatches()):
        one = extract_descriptors(digits, descriptor, n_jobs=1)
        many = extract_descriptors(digits, descriptor, n_jobs=n_jobs)
        assert len(one) == len(many) == len(digits)
        for a, b in zip(one, many, strict=True):
            np.testing.assert_array_equal(a, b)


def test_extract_threads_keep_order_over_many_chunks() -> None:
    # more images than one chunk (256), each image marked by its index
    images = np.zeros((600, 2, 2))
    images[:, 0, 0] = np.arange(600)

    def first_pixel(image: np.ndarray) -> np.ndarray:
        return np.array([[image[0, 0]]])

    sets = extract_descriptors(images, first_pixel, n_jobs=2, progress=True)
    np.testing.assert_array_equal(np.concatenate(sets)[:, 0], np.arange(600))


def test_extract_custom_callables_and_sequences() -> None:
    images = [np.full((5, 7), v, dtype=np.uint8) for v in (1, 2, 3)]
    sets = extract_descriptors(images, lambda im: np.tile(im.mean(), (int(im[0, 0]), 2)))
    assert [d.shape for d in sets] == [(1, 2), (2, 2), (3, 2)]
    assert all(d.dtype == np.float64 for d in sets)
    # varying image sizes in a list, a generator, boolean descriptors, empty sets
    sizes = [np.zeros((n, n)) for n in (8, 12)]
    sets = extract_descriptors(iter(sizes), DensePatches(size=4, step=4))
    assert [d.shape for d in sets] == [(4, 16), (9, 16)]
    sets = extract_descriptors(sizes, lambda im: np.ones((0, 3), dtype=bool))
    assert [d.shape for d in sets] == [(0, 3), (0, 3)]


def test_extract_progress_flag(digits: np.ndarray) -> None:
    a = extract_descriptors(digits[:4], DensePatches(), progress=True)
    b = extract_descriptors(digits[:4], DensePatches(), progress=False)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(TypeError, match="progress must be a bool"):
        extract_descriptors(digits[:4], DensePatches(), progress="yes")


@pytest.mark.parametrize(
    ("images", "error", "match"),
    [
        (np.zeros((0, 28, 28)), ValueError, "images is empty"),
        ([], ValueError, "images is empty"),
        (np.zeros((28, 28)), ValueError, r"got one 2-D array .*pass \[image\]"),
        (np.zeros((2, 28, 28, 3)), ValueError, "colour images must be converted to grey"),
        (np.zeros(5), ValueError, r"images must be an array of shape \(n, H, W\)"),
        (None, TypeError, "images must be an array"),
        ("digits", TypeError, "images must be an array"),
        (5, TypeError, "images must be an array"),
    ],
)
def test_extract_bad_images(images: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        extract_descriptors(images, DensePatches())


def test_extract_bad_image_inside_is_named_by_index() -> None:
    images = [np.zeros((28, 28)), np.zeros((28, 28, 3))]
    with pytest.raises(ValueError, match="convert it to grey") as info:
        extract_descriptors(images, DensePatches())
    assert any("images[1]" in note for note in info.value.__notes__)


def test_extract_bad_descriptors() -> None:
    images = np.zeros((5, 10, 10))

    def width(image: np.ndarray, _count: list[int] = [0]) -> np.ndarray:  # noqa: B006
        _count[0] += 1
        return np.zeros((2, 64 if _count[0] == 4 else 128))

    with pytest.raises(ValueError, match=r"width 64 for images\[3\] but 128 for images\[0\]"):
        extract_descriptors(images, width)

    def none(image: np.ndarray) -> None:
        return None

    with pytest.raises(TypeError, match=r"descriptor .*none returned None for images\[0\]"):
        extract_descriptors(images, none)
    with pytest.raises(ValueError, match=r"returned shape \(3,\) for images\[0\]"):
        extract_descriptors(images, lambda im: np.zeros(3))
    with pytest.raises(ValueError, match=r"returned shape \(1, 2, 2\)"):
        extract_descriptors(images, lambda im: np.zeros((1, 2, 2)))
    with pytest.raises(ValueError, match="returned NaN or infinity for images"):
        extract_descriptors(images, lambda im: np.full((2, 3), np.nan))
    with pytest.raises(TypeError, match="returned an array of dtype <U1"):
        extract_descriptors(images, lambda im: np.full((2, 3), "a"))
    with pytest.raises(ValueError, match="width 0"):
        extract_descriptors(images, lambda im: np.zeros((2, 0)))
    with pytest.raises(TypeError, match="descriptor must be a callable"):
        extract_descriptors(images, "sift")
    with pytest.raises(TypeError, match="n_jobs must be an integer"):
        extract_descriptors(images, DensePatches(size=3), n_jobs=1.5)
    with pytest.raises(ValueError, match="n_jobs must be None, -1 or a positive integer"):
        extract_descriptors(images, DensePatches(size=3), n_jobs=0)


def test_extract_error_in_a_thread_propagates() -> None:
    images = np.zeros((10, 10, 10))
    images[7, 0, 0] = np.nan
    with pytest.raises(ValueError, match="image contains NaN") as info:
        extract_descriptors(images, DensePatches(size=3), n_jobs=2)
    assert any("images[7]" in note for note in info.value.__notes__)


def test_sift_without_opencv_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "cv2", None)  # makes `import cv2` raise ImportError
    with pytest.raises(ImportError, match="pip install opencv-python-headless"):
        SIFTDescriptors()(_blank())
    # the rest needs no OpenCV
    assert DensePatches()(_blank()).shape == (64, 49)
