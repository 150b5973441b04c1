"""The built-in `dark` and `light` themes, as OKHSL values (`H S% L%`)."""

from __future__ import annotations

__all__ = ["BUILTIN_EXPORT", "BUILTIN_TOKENS", "BUILTIN_VARS", "SYSTEM_SLOTS"]

# var -> (dark, light)
BUILTIN_VARS: dict[str, tuple[str, str]] = {
    "text": ("234 3 89", "225 5 27"),
    "muted": ("229 6 67", "229 8 47"),
    "violet": ("295 50 67", "295 60 46"),
    "blue": ("232 54 67", "231 68 47"),
    "green": ("159 59 67", "159 75 46"),
    "red": ("20 72 67", "20 91 47"),
    "yellow": ("83 88 67", "83 99 47"),
    "blueBg": ("233 41 24", "235 19 91"),
}

_SAME_VAR = {
    "violet": "accent customMessageLabel mdCode mdListBullet syntaxType",
    "green": "success mdCodeBlock toolDiffAdded syntaxNumber",
    "red": "error toolDiffRemoved",
    "yellow": "warning mdHeading syntaxFunction",
    "blue": "mdLink syntaxKeyword",
    "text": "text userMessageText toolTitle",
    "blueBg": "selectedBg userMessageBg",
    "muted": (
        "muted searchMatchText customMessageText toolOutput mdLinkUrl mdCodeBlockBorder mdQuote mdQuoteBorder"
        " mdHr toolDiffContext syntaxComment syntaxOperator syntaxPunctuation"
    ),
}

_OWN: dict[str, tuple[str, str]] = {
    "border": ("231 57 65", "231 67 55"),
    "borderAccent": ("295 53 64", "295 59 55"),
    "borderMuted": ("229 8 53", "235 7 66"),
    "dim": ("229 8 56", "229 7 59"),
    "thinkingText": ("226 7 65", "234 8 55"),
    "scrollbarTrack": ("237 7 33", "248 3 90"),
    "scrollbarThumb": ("232 7 65", "226 7 65"),
    "searchMatchBg": ("53 51 24", "56 22 91"),
    "customMessageBg": ("295 42 24", "295 25 91"),
    "toolPendingBg": ("229 5 24", "248 3 91"),
    "toolSuccessBg": ("158 46 25", "156 21 91"),
    "toolErrorBg": ("19 54 25", "24 23 91"),
    "syntaxVariable": ("202 58 67", "203 73 46"),
    "syntaxString": ("52 67 67", "52 84 46"),
    "thinkingOff": ("229 8 49", "223 5 80"),
    "thinkingMinimal": ("232 20 52", "229 14 78"),
    "thinkingLow": ("232 45 54", "232 33 76"),
    "thinkingMedium": ("263 59 56", "264 48 74"),
    "thinkingHigh": ("295 73 59", "295 62 72"),
    "thinkingXhigh": ("337 81 61", "337 74 70"),
    "thinkingMax": ("20 99 63", "20 98 68"),
    "bashMode": ("159 64 65", "159 74 55"),
}

#: token -> (dark, light) OKHSL triple text
BUILTIN_TOKENS: dict[str, tuple[str, str]] = {
    token: BUILTIN_VARS[var] for var, tokens in _SAME_VAR.items() for token in tokens.split()
} | _OWN

BUILTIN_EXPORT: dict[str, tuple[str, str]] = {
    "pageBg": ("262 14 16", "17 3 94"),
    "cardBg": ("264 13 19", "17 5 97"),
    "infoBg": ("53 51 24", "56 22 91"),
}

#: The ANSI slot whose hue each token takes in the `system` theme (None: the terminal's own text colour).
SYSTEM_SLOTS: dict[str, int | None] = (
    {token: 5 for token in _SAME_VAR["violet"].split()}
    | {token: 2 for token in _SAME_VAR["green"].split()}
    | {token: 1 for token in _SAME_VAR["red"].split()}
    | {token: 3 for token in _SAME_VAR["yellow"].split()}
    | {token: 4 for token in _SAME_VAR["blue"].split()}
    | {token: None for token in _SAME_VAR["text"].split()}
    | {token: 4 for token in ("selectedBg", "userMessageBg")}
    | {token: None for token in _SAME_VAR["muted"].split()}
    | {
        "border": 4,
        "borderAccent": 5,
        "borderMuted": None,
        "dim": None,
        "thinkingText": None,
        "scrollbarTrack": None,
        "scrollbarThumb": None,
        "searchMatchBg": 3,
        "customMessageBg": 5,
        "toolPendingBg": None,
        "toolSuccessBg": 2,
        "toolErrorBg": 1,
        "syntaxVariable": 6,
        "syntaxString": 3,
        "thinkingOff": None,
        "thinkingMinimal": 4,
        "thinkingLow": 4,
        "thinkingMedium": 5,
        "thinkingHigh": 5,
        "thinkingXhigh": 1,
        "thinkingMax": 1,
        "bashMode": 2,
    }
)
