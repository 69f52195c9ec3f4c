//! The constants and tables of the device's elementary functions, generated as CUDA source from
//! the host's own: the tables are read out of the very Rust source of `precision/src/*.rs`
//! (embedded with `include_str!`, so a changed table changes the kernels at the next build), and
//! the public constants (`Dd::PI`, `Qd::LN_2`, ...) are taken from their values. Every double is
//! written as an exact C99 hexadecimal literal, so no decimal conversion stands between the two.
#![deny(unsafe_code)]

use std::fmt::Write;
use std::sync::OnceLock;

use precision::{Dd, Qd};

use super::error::{GpuError, Result};

const TRIG_RS: &str = include_str!("../../precision/src/trig.rs");
const INVERSE_TRIG_RS: &str = include_str!("../../precision/src/inverse_trig.rs");
const EXP_LOG_RS: &str = include_str!("../../precision/src/exp_log.rs");
const EXP_FIXED_RS: &str = include_str!("../../precision/src/exp_fixed.rs");
const TRIG_FIXED_RS: &str = include_str!("../../precision/src/trig_fixed.rs");
const LOG_FIXED_RS: &str = include_str!("../../precision/src/log_fixed.rs");
const ATAN_FIXED_RS: &str = include_str!("../../precision/src/atan_fixed.rs");
const PAYNE_HANEK_RS: &str = include_str!("../../precision/src/payne_hanek.rs");

/// `(source, Rust name, CUDA name, number of doubles)` of each table.
const TABLES: [(&str, &str, &str, usize); 10] = [
    (TRIG_RS, "PI_1024_PARTS", "HPQ_PI_1024_PARTS", 7),
    (TRIG_RS, "SIN_COS_TABLE", "HPQ_SIN_COS_TABLE", 257 * 8),
    (TRIG_RS, "SIN_COEFFS", "HPQ_SIN_COEFFS", 10 * 4),
    (TRIG_RS, "COS_COEFFS", "HPQ_COS_COEFFS", 10 * 4),
    (INVERSE_TRIG_RS, "ATAN_COEFFS", "HPQ_ATAN_COEFFS", 14 * 4),
    (EXP_LOG_RS, "INV_FACT", "HPQ_INV_FACT", 30 * 4),
    (EXP_LOG_RS, "INV_N", "HPQ_INV_N", 10 * 4),
    (EXP_LOG_RS, "LOG2_E", "HPQ_LOG2_E", 4),
    (EXP_LOG_RS, "LOG10_E", "HPQ_LOG10_E", 4),
    (EXP_LOG_RS, "LN2_PIECES", "HPQ_LN2_PIECES", 8),
];

/// `(source, Rust name, CUDA name, number of u64 limbs)` of each fixed-point table.
const LIMB_TABLES: [(&str, &str, &str, usize); 21] = [
    (EXP_FIXED_RS, "LN2_FIX", "HPQ_LN2_FIX", 4),
    (EXP_FIXED_RS, "EXP_J256_M1", "HPQ_EXP_J256_M1", 178 * 4),
    (EXP_FIXED_RS, "EXP_K65536_M1", "HPQ_EXP_K65536_M1", 256 * 4),
    (EXP_FIXED_RS, "EXP_COEFFS", "HPQ_EXP_COEFFS", 13 * 4),
    (TRIG_FIXED_RS, "PI_2_FIX", "HPQ_PI_2_FIX", 6),
    (TRIG_FIXED_RS, "KAPPA", "HPQ_KAPPA", 4),
    (TRIG_FIXED_RS, "SIN_NUMERATORS", "HPQ_SIN_NUMERATORS", 7),
    (TRIG_FIXED_RS, "COS_NUMERATORS", "HPQ_COS_NUMERATORS", 7),
    (
        TRIG_FIXED_RS,
        "SIN_J256_OVER_2K",
        "HPQ_SIN_J256_OVER_2K",
        403 * 4,
    ),
    (
        TRIG_FIXED_RS,
        "COS_J256_OVER_2K",
        "HPQ_COS_J256_OVER_2K",
        403 * 4,
    ),
    (TRIG_FIXED_RS, "SIN_I65536", "HPQ_SIN_I65536", 256 * 4),
    (TRIG_FIXED_RS, "COS_M1_I65536", "HPQ_COS_M1_I65536", 256 * 4),
    (LOG_FIXED_RS, "LOG_R1", "HPQ_LOG_R1", 256),
    (LOG_FIXED_RS, "LOG_R2", "HPQ_LOG_R2", 258),
    (LOG_FIXED_RS, "LOG_L1", "HPQ_LOG_L1", 256 * 4),
    (LOG_FIXED_RS, "LOG_L2", "HPQ_LOG_L2", 258 * 4),
    (LOG_FIXED_RS, "LOG_COEFFS", "HPQ_LOG_COEFFS", 16 * 4),
    (ATAN_FIXED_RS, "ATAN_J256", "HPQ_ATAN_J256", 257 * 4),
    (ATAN_FIXED_RS, "ATAN_I65536", "HPQ_ATAN_I65536", 257 * 4),
    (ATAN_FIXED_RS, "ATAN_SERIES", "HPQ_ATAN_SERIES", 7 * 4),
    (PAYNE_HANEK_RS, "TWO_OVER_PI", "HPQ_TWO_OVER_PI", 34),
];

/// `(source, Rust name, CUDA macro)` of each scalar constant.
const SCALARS: [(&str, &str, &str); 10] = [
    (TRIG_RS, "FIXED_LOWER", "HPQ_FIXED_LOWER"),
    (TRIG_FIXED_RS, "FIXED_LIMIT", "HPQ_FIXED_LIMIT"),
    (TRIG_FIXED_RS, "FRAC_2_PI", "HPQ_FRAC_2_PI"),
    (TRIG_RS, "INV_STEP", "HPQ_INV_STEP"),
    (EXP_LOG_RS, "EXP_OVERFLOW", "HPQ_EXP_OVERFLOW"),
    (EXP_LOG_RS, "EXP_UNDERFLOW", "HPQ_EXP_UNDERFLOW"),
    (EXP_LOG_RS, "POWF_DD_Y", "HPQ_POWF_DD_Y"),
    (EXP_LOG_RS, "POWF_DD_Y_WIDE", "HPQ_POWF_DD_Y_WIDE"),
    (ATAN_FIXED_RS, "QD_RATIO_LIMIT", "HPQ_QD_RATIO_LIMIT"),
    (ATAN_FIXED_RS, "DD_RATIO_LIMIT", "HPQ_DD_RATIO_LIMIT"),
];

/// The exact C99 hexadecimal literal of a finite double (`0x1.921fb54442d18p+1`), or the
/// expression of an infinity or NaN.
pub(crate) fn hex(x: f64) -> String {
    if x.is_nan() {
        return "__longlong_as_double(0x7ff8000000000000LL)".into();
    }
    if x.is_infinite() {
        let s = if x > 0.0 { "" } else { "-" };
        return format!("{s}__longlong_as_double(0x7ff0000000000000LL)");
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 1 { "-" } else { "" };
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = bits & 0x000f_ffff_ffff_ffff;
    match (exp, mant) {
        (0, 0) => format!("{sign}0.0"),
        (0, _) => format!("{sign}0x0.{mant:013x}p-1022"),
        _ => format!("{sign}0x1.{mant:013x}p{:+}", exp - 1023),
    }
}

/// The value of a number in a Rust table: a float literal or one of the `std::f64::consts`
/// the tables use.
fn number(token: &str) -> Option<f64> {
    match token {
        "std::f64::consts::LOG2_E" => Some(std::f64::consts::LOG2_E),
        "std::f64::consts::LOG10_E" => Some(std::f64::consts::LOG10_E),
        "std::f64::consts::FRAC_2_PI" => Some(std::f64::consts::FRAC_2_PI),
        _ => token.replace('_', "").parse().ok(),
    }
}

/// The numbers of the item `static NAME` or `const NAME` in `source`, in order: everything
/// between its `=` and the `;` that ends it, comments dropped.
fn rust_item(source: &str, name: &str) -> Result<Vec<f64>> {
    let missing = || GpuError::Invalid(format!("no table {name} in the host source"));
    let start = [format!("static {name}:"), format!("const {name}:")]
        .iter()
        .find_map(|p| source.find(p.as_str()))
        .ok_or_else(missing)?;
    let rest = &source[start..];
    let eq = rest.find('=').ok_or_else(missing)?;
    let end = rest[eq..].find(';').ok_or_else(missing)? + eq;
    let mut values = Vec::new();
    for line in rest[eq + 1..end].lines() {
        let code = line.split("//").next().unwrap_or("");
        for token in code.split(|c: char| "[](),".contains(c) || c.is_whitespace()) {
            if token.is_empty() {
                continue;
            }
            values.push(number(token).ok_or_else(|| {
                GpuError::Invalid(format!("table {name}: cannot read '{token}' as a number"))
            })?);
        }
    }
    Ok(values)
}

/// The u64 limbs of the item `const NAME` in `source` (hexadecimal literals), in order.
fn rust_limbs(source: &str, name: &str) -> Result<Vec<u64>> {
    let missing = || GpuError::Invalid(format!("no table {name} in the host source"));
    let start = source.find(&format!("const {name}:")).ok_or_else(missing)?;
    let rest = &source[start..];
    let eq = rest.find('=').ok_or_else(missing)?;
    let end = rest[eq..].find(';').ok_or_else(missing)? + eq;
    let mut values = Vec::new();
    for line in rest[eq + 1..end].lines() {
        let code = line.split("//").next().unwrap_or("");
        for token in code.split(|c: char| "[](),".contains(c) || c.is_whitespace()) {
            if token.is_empty() {
                continue;
            }
            let digits = token.strip_prefix("0x").unwrap_or(token).replace('_', "");
            values.push(u64::from_str_radix(&digits, 16).map_err(|_| {
                GpuError::Invalid(format!("table {name}: cannot read '{token}' as a u64"))
            })?);
        }
    }
    Ok(values)
}

fn components_macros(out: &mut String, name: &str, c: &[f64]) {
    for (i, x) in c.iter().enumerate() {
        // Writing into a String cannot fail.
        let _ = writeln!(out, "#define {name}_{i} {}", hex(*x));
    }
}

/// The CUDA source of every constant and table the device functions use, as `#define`s and
/// `__device__ const double` arrays. It goes before `kernels/expansion.cuh`. Generated once a
/// process (reading the tables out of the host's source took 7–12 ms, paid by the first call
/// of every kernel whose integrand calls a function), the same text every time.
pub(crate) fn function_constants() -> Result<&'static str> {
    static SOURCE: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    SOURCE
        .get_or_init(|| {
            // The generator's errors are all Invalid: keep the message, rebuild it on each call.
            generate_function_constants().map_err(|e| match e {
                GpuError::Invalid(message) => message,
                other => other.to_string(),
            })
        })
        .as_deref()
        .map_err(|message| GpuError::Invalid(message.to_string()))
}

fn generate_function_constants() -> Result<String> {
    let mut out = String::with_capacity(128 * 1024);
    out.push_str("// Generated by src/gpu/tables.rs from the host's constants and tables.\n");
    out.push_str("#pragma once\n");
    let _ = writeln!(out, "#define HPQ_NAN {}", hex(f64::NAN));
    let _ = writeln!(out, "#define HPQ_INFINITY {}", hex(f64::INFINITY));
    let _ = writeln!(out, "#define HPQ_F64_LN_2 {}", hex(std::f64::consts::LN_2));
    let _ = writeln!(
        out,
        "#define HPQ_F64_SQRT_2 {}",
        hex(std::f64::consts::SQRT_2)
    );
    let _ = writeln!(
        out,
        "#define HPQ_F64_MIN_POSITIVE {}",
        hex(f64::MIN_POSITIVE)
    );
    let dd = [
        ("PI", Dd::PI),
        ("FRAC_PI_2", Dd::FRAC_PI_2),
        ("FRAC_PI_4", Dd::FRAC_PI_4),
        ("LN_2", Dd::LN_2),
    ];
    for (name, v) in dd {
        components_macros(&mut out, &format!("HPQ_DD_{name}"), &v.components());
    }
    let qd = [
        ("PI", Qd::PI),
        ("FRAC_PI_2", Qd::FRAC_PI_2),
        ("FRAC_PI_4", Qd::FRAC_PI_4),
        ("LN_2", Qd::LN_2),
    ];
    for (name, v) in qd {
        components_macros(&mut out, &format!("HPQ_QD_{name}"), &v.components());
    }
    for (source, name, cuda) in SCALARS {
        let v = rust_item(source, name)?;
        if v.len() != 1 {
            return Err(GpuError::Invalid(format!(
                "{name}: {} numbers, not one",
                v.len()
            )));
        }
        let _ = writeln!(out, "#define {cuda} {}", hex(v[0]));
    }
    for (source, name, cuda, len) in TABLES {
        let v = rust_item(source, name)?;
        if v.len() != len {
            return Err(GpuError::Invalid(format!(
                "table {name}: {} numbers, expected {len}",
                v.len()
            )));
        }
        let _ = writeln!(out, "__device__ const double {cuda}[{len}] = {{");
        for row in v.chunks(4) {
            let row: Vec<String> = row.iter().map(|&x| hex(x)).collect();
            let _ = writeln!(out, "    {},", row.join(", "));
        }
        out.push_str("};\n");
    }
    for (source, name, cuda, len) in LIMB_TABLES {
        let v = rust_limbs(source, name)?;
        if v.len() != len {
            return Err(GpuError::Invalid(format!(
                "table {name}: {} limbs, expected {len}",
                v.len()
            )));
        }
        let _ = writeln!(
            out,
            "__device__ const unsigned long long {cuda}[{len}] = {{"
        );
        for row in v.chunks(4) {
            let row: Vec<String> = row.iter().map(|&x| format!("0x{x:016x}ULL")).collect();
            let _ = writeln!(out, "    {},", row.join(", "));
        }
        out.push_str("};\n");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a hexadecimal literal back, to check `hex` without a C compiler.
    fn parse_hex(s: &str) -> f64 {
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        if s == "0.0" {
            return if neg { -0.0 } else { 0.0 };
        }
        let s = s.strip_prefix("0x").expect("0x");
        let (m, e) = s.split_once('p').expect("p");
        let (lead, frac) = m.split_once('.').expect(".");
        let mant = u64::from_str_radix(frac, 16).expect("hex digits");
        let v = (lead.parse::<u64>().expect("lead") as f64 + mant as f64 / 2f64.powi(52))
            * 2f64.powi(e.parse::<i32>().expect("exponent"));
        if neg {
            -v
        } else {
            v
        }
    }

    #[test]
    fn hex_literals_are_exact() {
        for x in [
            1.0,
            -0.0,
            std::f64::consts::PI,
            -1.2246467991473532e-16,
            f64::MAX,
            f64::MIN_POSITIVE,
            1e-300,
            3.061616997868383e-17,
        ] {
            assert_eq!(
                parse_hex(&hex(x)).to_bits(),
                x.to_bits(),
                "{x:e} -> {}",
                hex(x)
            );
        }
        assert_eq!(hex(0.5), "0x1.0000000000000p-1");
    }

    #[test]
    fn tables_are_read_whole_from_the_host_source() {
        let src = function_constants().expect("tables");
        assert!(src.contains("HPQ_SIN_COS_TABLE[2056]"));
        let parts = rust_item(TRIG_RS, "PI_1024_PARTS").expect("parts");
        assert_eq!(parts[0], 0.0030679615757712823);
        let log2e = rust_item(EXP_LOG_RS, "LOG2_E").expect("log2 e");
        assert_eq!(log2e[0], std::f64::consts::LOG2_E);
        let inv_n = rust_item(EXP_LOG_RS, "INV_N").expect("1/n");
        assert_eq!(
            (inv_n.len(), inv_n[4 * 3], inv_n[4 * 9]),
            (40, 1.0 / 3.0, 1.0 / 9.0)
        );
        let coeffs = rust_item(INVERSE_TRIG_RS, "ATAN_COEFFS").expect("atan series");
        assert_eq!(coeffs[4], -1.0 / 3.0);
        // atan(1) = π/4: the leading limb's top 53 bits are those of the double π/4.
        let atan = rust_limbs(ATAN_FIXED_RS, "ATAN_J256").expect("atan");
        assert_eq!(
            atan[256 * 4 + 3] >> 11,
            (std::f64::consts::FRAC_PI_4 * 2f64.powi(53)) as u64
        );
        assert!(src.contains("HPQ_ATAN_I65536[1028]"));
        assert_eq!(
            rust_item(TRIG_RS, "INV_STEP").expect("step"),
            [325.94932345220167]
        );
        let ln2 = rust_limbs(EXP_FIXED_RS, "LN2_FIX").expect("ln2");
        // The leading limb of ln2 in fixed point is the double ln2's leading 53 bits.
        assert_eq!(
            ln2[3] >> 11,
            (std::f64::consts::LN_2 * 2f64.powi(53)) as u64
        );
        assert!(src.contains("HPQ_EXP_K65536_M1[1024]"));
        assert!(src.contains("0x0001000000000000ULL"));
        assert!(src.contains("HPQ_SIN_J256_OVER_2K[1612]"));
        // The series' numerators 13!/(2k+1)! and 13!/(2k)!, read as the integers they are.
        let sin = rust_limbs(TRIG_FIXED_RS, "SIN_NUMERATORS").expect("sin numerators");
        let cos = rust_limbs(TRIG_FIXED_RS, "COS_NUMERATORS").expect("cos numerators");
        assert_eq!(
            (sin[1], sin[6], cos[1], cos[6]),
            (1037836800, 1, 3113510400, 13)
        );
        assert_eq!(rust_limbs(LOG_FIXED_RS, "LOG_R1").expect("R1")[0], 1 << 16);
        assert_eq!(rust_limbs(TRIG_FIXED_RS, "PI_2_FIX").expect("pi/2")[5], 1);
    }

    /// `kernels/qd.cuh` cannot take the generated constants (the arithmetic kernels are built
    /// without them), so it writes qd.rs's few as literals: they must be the host's.
    #[test]
    fn qd_header_constants_are_the_hosts() {
        const QD_RS: &str = include_str!("../../precision/src/qd.rs");
        const QD_CUH: &str = include_str!("../../kernels/qd.cuh");
        for (name, cuda) in [
            ("ADD_CANCEL_LIMIT", "HPQ_QD_ADD_CANCEL_LIMIT"),
            ("SQRT_SCALE_BELOW", "HPQ_QD_SQRT_SCALE_BELOW"),
            ("SQRT_SCALE_ABOVE", "HPQ_QD_SQRT_SCALE_ABOVE"),
        ] {
            let v = rust_item(QD_RS, name).expect("host constant");
            let line = format!("#define {cuda} {}\n", hex(v[0]));
            assert!(QD_CUH.contains(&line), "qd.cuh lacks {line}");
        }
    }
}
