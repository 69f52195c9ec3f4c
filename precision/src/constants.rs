//! Mathematical constants to full double-double and quad-double precision.
//!
//! Components computed with mpmath at 600 bits, each the nearest double to what the previous
//! ones leave (`c_k = round(x - c_0 - ... - c_{k-1})`); `tests/constants.rs` checks them
//! against MPFR.

use std::f64::consts;

use crate::{Dd, Qd};

impl Dd {
    /// π to double-double precision.
    pub const PI: Dd = Dd::new(consts::PI, 1.2246467991473532e-16);
    /// 2π to double-double precision.
    pub const TAU: Dd = Dd::new(consts::TAU, 2.4492935982947064e-16);
    /// π/2 to double-double precision.
    pub const FRAC_PI_2: Dd = Dd::new(consts::FRAC_PI_2, 6.123233995736766e-17);
    /// π/4 to double-double precision.
    pub const FRAC_PI_4: Dd = Dd::new(consts::FRAC_PI_4, 3.061616997868383e-17);
    /// e, Euler's number to double-double precision.
    pub const E: Dd = Dd::new(consts::E, 1.4456468917292502e-16);
    /// ln 2 to double-double precision.
    pub const LN_2: Dd = Dd::new(consts::LN_2, 2.3190468138462996e-17);
    /// ln 10 to double-double precision.
    pub const LN_10: Dd = Dd::new(consts::LN_10, -2.1707562233822494e-16);
}

impl Qd {
    /// π to quad-double precision.
    pub const PI: Qd = Qd([
        consts::PI,
        1.2246467991473532e-16,
        -2.9947698097183397e-33,
        1.1124542208633653e-49,
    ]);
    /// 2π to quad-double precision.
    pub const TAU: Qd = Qd([
        consts::TAU,
        2.4492935982947064e-16,
        -5.989539619436679e-33,
        2.2249084417267306e-49,
    ]);
    /// π/2 to quad-double precision.
    pub const FRAC_PI_2: Qd = Qd([
        consts::FRAC_PI_2,
        6.123233995736766e-17,
        -1.4973849048591698e-33,
        5.562271104316826e-50,
    ]);
    /// π/4 to quad-double precision.
    pub const FRAC_PI_4: Qd = Qd([
        consts::FRAC_PI_4,
        3.061616997868383e-17,
        -7.486924524295849e-34,
        2.781135552158413e-50,
    ]);
    /// e, Euler's number to quad-double precision.
    pub const E: Qd = Qd([
        consts::E,
        1.4456468917292502e-16,
        -2.1277171080381768e-33,
        1.5156301598412191e-49,
    ]);
    /// ln 2 to quad-double precision.
    pub const LN_2: Qd = Qd([
        consts::LN_2,
        2.3190468138462996e-17,
        5.707708438416212e-34,
        -3.5824322106018114e-50,
    ]);
    /// ln 10 to quad-double precision.
    pub const LN_10: Qd = Qd([
        consts::LN_10,
        -2.1707562233822494e-16,
        -9.984262454465777e-33,
        -4.023357454450206e-49,
    ]);
}
