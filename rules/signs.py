"""Numbers as the app writes them: a negative one with a true minus sign (U+2212), never a hyphen, wherever it is
shown — a modifier ("+2", "−2", "0"), a roll's total ("−3"), a limit in a message."""


def signed(number: int) -> str:
    """A modifier: "+2", "−2", "0"."""
    return f"−{-number}" if number < 0 else f"+{number}" if number > 0 else "0"


def minus(number: int) -> str:
    """A number that may be negative (a roll's total, a lowest limit): "−3", else as it is."""
    return f"−{-number}" if number < 0 else str(number)
