"""Colour spaces for themes: OKLab, OKLCH and OKHSL to sRGB, and the nearest xterm 256-colour index.

The built-in themes are written in OKHSL (hue, saturation, perceptual lightness), which keeps tokens
of one family equally bright whatever their hue. The conversion follows Björn Ottosson's published
definitions of OKLab and OKHSL (gamut cusp, toe function, the piecewise chroma scale).
"""

from __future__ import annotations

import math

__all__ = [
    "RGB",
    "contrast_ratio",
    "hex_to_rgb",
    "nearest_256",
    "okhsl_to_rgb",
    "oklch_to_rgb",
    "relative_luminance",
    "rgb_to_okhsl",
    "xterm_256_rgb",
]

RGB = tuple[int, int, int]

_K1, _K2 = 0.206, 0.03
_K3 = (1 + _K1) / (1 + _K2)


def _toe(x: float) -> float:
    return 0.5 * (_K3 * x - _K1 + math.sqrt((_K3 * x - _K1) ** 2 + 4 * _K2 * _K3 * x))


def _toe_inv(x: float) -> float:
    return (x * x + _K1 * x) / (_K3 * (x + _K2))


def _oklab_to_linear(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    l_ = (lightness + 0.3963377774 * a + 0.2158037573 * b) ** 3
    m_ = (lightness - 0.1055613458 * a - 0.0638541728 * b) ** 3
    s_ = (lightness - 0.0894841775 * a - 1.2914855480 * b) ** 3
    return (
        4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
        -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
        -0.0041960863 * l_ - 0.7034186147 * m_ + 1.7076147010 * s_,
    )


def _linear_to_oklab(r: float, g: float, b: float) -> tuple[float, float, float]:
    l_ = math.copysign(abs(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b) ** (1 / 3), 1)
    m_ = math.copysign(abs(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b) ** (1 / 3), 1)
    s_ = math.copysign(abs(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b) ** (1 / 3), 1)
    return (
        0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_,
        1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_,
        0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_,
    )


def _encode(channel: float) -> int:
    c = min(1.0, max(0.0, channel))
    v = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
    return round(v * 255)


def _decode(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _max_saturation(a: float, b: float) -> float:
    """Largest saturation C/L at hue (a, b) that stays inside sRGB (one Halley step on a fit)."""
    if -1.88170328 * a - 0.80936493 * b > 1:
        k = (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)
        w = (4.0767416621, -3.3077115913, 0.2309699292)
    elif 1.81444104 * a - 1.19445276 * b > 1:
        k = (0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204)
        w = (-1.2684380046, 2.6097574011, -0.3413193965)
    else:
        k = (1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167)
        w = (-0.0041960863, -0.7034186147, 1.7076147010)
    s = k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b
    kl = 0.3963377774 * a + 0.2158037573 * b
    km = -0.1055613458 * a - 0.0638541728 * b
    ks = -0.0894841775 * a - 1.2914855480 * b
    l_, m_, s_ = 1 + s * kl, 1 + s * km, 1 + s * ks
    f = w[0] * l_**3 + w[1] * m_**3 + w[2] * s_**3
    f1 = w[0] * 3 * kl * l_**2 + w[1] * 3 * km * m_**2 + w[2] * 3 * ks * s_**2
    f2 = w[0] * 6 * kl * kl * l_ + w[1] * 6 * km * km * m_ + w[2] * 6 * ks * ks * s_
    return s - f * f1 / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    s_cusp = _max_saturation(a, b)
    rgb = _oklab_to_linear(1, s_cusp * a, s_cusp * b)
    l_cusp = (1 / max(rgb)) ** (1 / 3)
    return l_cusp, l_cusp * s_cusp


def _gamut_intersection(a: float, b: float, l1: float, c1: float, l0: float, cusp: tuple[float, float]) -> float:
    cusp_l, cusp_c = cusp
    if (l1 - l0) * cusp_c - (cusp_l - l0) * c1 <= 0:
        return cusp_c * l0 / (c1 * cusp_l + cusp_c * (l0 - l1))
    t = cusp_c * (l0 - 1) / (c1 * (cusp_l - 1) + cusp_c * (l0 - l1))
    dl, dc = l1 - l0, c1
    kl = 0.3963377774 * a + 0.2158037573 * b
    km = -0.1055613458 * a - 0.0638541728 * b
    ks = -0.0894841775 * a - 1.2914855480 * b
    ldt, mdt, sdt = dl + dc * kl, dl + dc * km, dl + dc * ks
    lightness, chroma = l0 * (1 - t) + t * l1, t * c1
    l_, m_, s_ = lightness + chroma * kl, lightness + chroma * km, lightness + chroma * ks
    lms = (l_**3, m_**3, s_**3)
    d1 = (3 * ldt * l_**2, 3 * mdt * m_**2, 3 * sdt * s_**2)
    d2 = (6 * ldt**2 * l_, 6 * mdt**2 * m_, 6 * sdt**2 * s_)
    best = math.inf
    for w in (
        (4.0767416621, -3.3077115913, 0.2309699292),
        (-1.2684380046, 2.6097574011, -0.3413193965),
        (-0.0041960863, -0.7034186147, 1.7076147010),
    ):
        f = sum(wi * x for wi, x in zip(w, lms, strict=True)) - 1
        f1 = sum(wi * x for wi, x in zip(w, d1, strict=True))
        f2 = sum(wi * x for wi, x in zip(w, d2, strict=True))
        u = f1 / (f1 * f1 - 0.5 * f * f2)
        if u >= 0:
            best = min(best, -f * u)
    return t + best


def _chroma_scale(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    """The chroma anchors (C_0, C_mid, C_max) of OKHSL saturation at a lightness and hue."""
    cusp = _cusp(a, b)
    c_max = _gamut_intersection(a, b, lightness, 1, lightness, cusp)
    st_max = (cusp[1] / cusp[0], cusp[1] / (1 - cusp[0]))
    k = c_max / min(lightness * st_max[0], (1 - lightness) * st_max[1])
    s_mid = 0.11516993 + 1 / (
        7.44778970
        + 4.15901240 * b
        + a
        * (
            -2.19557347
            + 1.75198401 * b
            + a * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a))
        )
    )
    t_mid = 0.11239642 + 1 / (
        1.61320320
        - 0.68124379 * b
        + a
        * (
            0.40370612
            + 0.90148123 * b
            + a * (-0.27087943 + 0.61223990 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a))
        )
    )
    ca, cb = lightness * s_mid, (1 - lightness) * t_mid
    c_mid = 0.9 * k * math.sqrt(math.sqrt(1 / (1 / ca**4 + 1 / cb**4)))
    ca, cb = lightness * 0.4, (1 - lightness) * 0.8
    c_0 = math.sqrt(1 / (1 / ca**2 + 1 / cb**2))
    return c_0, c_mid, c_max


def okhsl_to_rgb(hue: float, saturation: float, lightness: float) -> RGB:
    """OKHSL (hue in degrees, saturation and lightness 0..1) to 8-bit sRGB."""
    if lightness >= 1:
        return (255, 255, 255)
    if lightness <= 0:
        return (0, 0, 0)
    h = (hue % 360) / 360
    a_, b_ = math.cos(2 * math.pi * h), math.sin(2 * math.pi * h)
    big_l = _toe_inv(lightness)
    chroma = 0.0
    if saturation > 0:
        c_0, c_mid, c_max = _chroma_scale(big_l, a_, b_)
        mid, mid_inv = 0.8, 1.25
        if saturation < mid:
            t = mid_inv * saturation
            k1 = mid * c_0
            k2 = 1 - k1 / c_mid
            chroma = t * k1 / (1 - k2 * t)
        else:
            t = (saturation - mid) / (1 - mid)
            k0 = c_mid
            k1 = (1 - mid) * c_mid**2 * mid_inv**2 / c_0
            k2 = 1 - k1 / (c_max - c_mid)
            chroma = k0 + t * k1 / (1 - k2 * t)
    r, g, b = _oklab_to_linear(big_l, chroma * a_, chroma * b_)
    return (_encode(r), _encode(g), _encode(b))


def rgb_to_okhsl(rgb: RGB) -> tuple[float, float, float]:
    """8-bit sRGB to OKHSL (hue in degrees, saturation and lightness 0..1)."""
    big_l, a, b = _linear_to_oklab(*(_decode(c) for c in rgb))
    chroma = math.hypot(a, b)
    lightness = _toe(big_l)
    if chroma < 1e-6 or big_l <= 0 or big_l >= 1:
        return (0.0, 0.0, min(1.0, max(0.0, lightness)))
    a_, b_ = a / chroma, b / chroma
    hue = (math.degrees(math.atan2(b_, a_)) + 360) % 360
    c_0, c_mid, c_max = _chroma_scale(big_l, a_, b_)
    mid, mid_inv = 0.8, 1.25
    if chroma < c_mid:
        k1 = mid * c_0
        k2 = 1 - k1 / c_mid
        saturation = chroma / (k1 + k2 * chroma) * mid
    else:
        k1 = (1 - mid) * c_mid**2 * mid_inv**2 / c_0
        k2 = 1 - k1 / (c_max - c_mid)
        t = (chroma - c_mid) / (k1 + k2 * (chroma - c_mid))
        saturation = mid + (1 - mid) * t
    return (hue, min(1.0, max(0.0, saturation)), lightness)


def oklch_to_rgb(lightness: float, chroma: float, hue: float) -> RGB:
    """OKLCH (lightness 0..1, chroma, hue in degrees) to 8-bit sRGB, clipped to the gamut."""
    h = math.radians(hue)
    r, g, b = _oklab_to_linear(lightness, chroma * math.cos(h), chroma * math.sin(h))
    return (_encode(r), _encode(g), _encode(b))


def hex_to_rgb(text: str) -> RGB | None:
    """`#rgb` or `#rrggbb` to RGB, None when malformed."""
    body = text[1:] if text.startswith("#") else ""
    if len(body) == 3:
        body = "".join(c * 2 for c in body)
    if len(body) != 6:
        return None
    try:
        value = int(body, 16)
    except ValueError:
        return None
    return ((value >> 16) & 255, (value >> 8) & 255, value & 255)


_BASE16 = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
]
_CUBE = (0, 95, 135, 175, 215, 255)


def xterm_256_rgb(index: int) -> RGB:
    """The RGB value xterm uses for a 256-colour index."""
    if index < 16:
        return _BASE16[index]
    if index < 232:
        i = index - 16
        return (_CUBE[i // 36], _CUBE[(i // 6) % 6], _CUBE[i % 6])
    v = 8 + 10 * (index - 232)
    return (v, v, v)


def nearest_256(rgb: RGB) -> int:
    """The closest colour of the 6×6×6 cube or the grey ramp (indices 16–255)."""

    def nearest_level(c: int) -> int:
        return min(range(6), key=lambda i: abs(_CUBE[i] - c))

    r, g, b = rgb
    cube = 16 + 36 * nearest_level(r) + 6 * nearest_level(g) + nearest_level(b)
    grey_index = min(23, max(0, round(((r + g + b) / 3 - 8) / 10)))
    grey = 232 + grey_index

    def distance(index: int) -> float:
        cr, cg, cb = xterm_256_rgb(index)
        return 2 * (cr - r) ** 2 + 4 * (cg - g) ** 2 + 3 * (cb - b) ** 2

    return cube if distance(cube) <= distance(grey) else grey


def relative_luminance(rgb: RGB) -> float:
    """WCAG relative luminance."""
    r, g, b = (_decode(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: RGB, b: RGB) -> float:
    """WCAG contrast ratio between two colours (1 to 21)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)
