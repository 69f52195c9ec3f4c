"""What the table generators of precision/gen/ share: mpmath at 1000 bits, a value as u64 limbs
of a fixed-point number (least significant first), a row of them as Rust, a whole table."""
import mpmath

mpmath.mp.prec = 1000


def limbs(v, n=4, bits=256):
    """v times 2^bits rounded to the nearest integer, as n u64 limbs."""
    x = int(mpmath.floor(v * mpmath.mpf(2) ** bits + mpmath.mpf(1) / 2))
    assert 0 <= x < 2 ** (64 * n)
    return [(x >> (64 * i)) & (2**64 - 1) for i in range(n)]


def row(ls):
    return "[" + ", ".join(f"0x{l:016x}" for l in ls) + "]"


def table(name, doc, values):
    """Prints `const name: [[u64; 4]; len]` of the values' limbs, with its doc comment."""
    print(doc)
    print("#[rustfmt::skip]")
    print(f"const {name}: [[u64; 4]; {len(values)}] = [")
    for v in values:
        print("    " + row(limbs(v)) + ",")
    print("];")
