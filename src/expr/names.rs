//! The names of the language: functions with their aliases, constants, variables, and the
//! "did you mean" suggestions for names that are none of these.

use super::tape::{Constant, Func, Func2};

/// What a function name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Function {
    Unary(Func),
    Binary(Func2),
}

impl Function {
    pub fn arity(self) -> usize {
        match self {
            Function::Unary(_) => 1,
            Function::Binary(_) => 2,
        }
    }

    /// How a correct call reads, for the wrong-number-of-arguments hint.
    pub fn usage(self, name: &str) -> String {
        match self {
            Function::Unary(_) => format!("write {name}(x)"),
            Function::Binary(Func2::Atan2) => format!("write {name}(y, x)"),
            Function::Binary(Func2::Pow) => format!("write {name}(x, y) or x^y"),
            Function::Binary(_) => format!("write {name}(x, y)"),
        }
    }
}

/// Other spellings accepted for a function, beside the canonical names of [`Func::name`] and
/// [`Func2::name`].
const ALIASES: [(&str, Function); 16] = [
    ("log", Function::Unary(Func::Ln)),
    ("exp_m1", Function::Unary(Func::ExpM1)),
    ("ln1p", Function::Unary(Func::Ln1p)),
    ("ln_1p", Function::Unary(Func::Ln1p)),
    ("arcsin", Function::Unary(Func::Asin)),
    ("arccos", Function::Unary(Func::Acos)),
    ("arctan", Function::Unary(Func::Atan)),
    ("arsinh", Function::Unary(Func::Asinh)),
    ("arcsinh", Function::Unary(Func::Asinh)),
    ("arcosh", Function::Unary(Func::Acosh)),
    ("arccosh", Function::Unary(Func::Acosh)),
    ("artanh", Function::Unary(Func::Atanh)),
    ("arctanh", Function::Unary(Func::Atanh)),
    ("arctan2", Function::Binary(Func2::Atan2)),
    ("fabs", Function::Unary(Func::Abs)),
    ("powf", Function::Binary(Func2::Pow)),
];

/// The function a name stands for, canonical name or alias.
pub(crate) fn function(name: &str) -> Option<Function> {
    Func::ALL
        .iter()
        .map(|&f| (f.name(), Function::Unary(f)))
        .chain(Func2::ALL.iter().map(|&f| (f.name(), Function::Binary(f))))
        .chain(ALIASES)
        .find(|(n, _)| *n == name)
        .map(|(_, f)| f)
}

/// The canonical function names, in the order messages list them.
fn function_names() -> impl Iterator<Item = &'static str> {
    Func::ALL
        .iter()
        .map(|f| f.name())
        .chain(Func2::ALL.iter().map(|f| f.name()))
}

/// Every accepted function spelling, for suggestions.
fn all_function_spellings() -> impl Iterator<Item = &'static str> {
    function_names().chain(ALIASES.iter().map(|(n, _)| *n))
}

pub(crate) fn constant(name: &str) -> Option<Constant> {
    match name {
        "pi" => Some(Constant::Pi),
        "e" => Some(Constant::E),
        _ => None,
    }
}

/// Why a name that looks like a variable cannot be one here: what is wrong, and a hint.
pub(crate) struct VariableError {
    pub what: String,
    pub hint: String,
}

/// Resolves a variable name to its 0-based coordinate: `x1..xn`, and `x, y, z` for domains of
/// up to three dimensions. `Ok(None)` means the name is not a variable name at all.
pub(crate) fn variable(name: &str, dims: usize) -> Result<Option<usize>, VariableError> {
    let (number, text): (Option<usize>, String) = match name {
        "x" => (Some(1), "1".into()),
        "y" => (Some(2), "2".into()),
        "z" => (Some(3), "3".into()),
        _ => match name.strip_prefix('x') {
            // Only x1, x2, ...: x0 and x01 are not variables.
            Some(digits)
                if !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
                    && !digits.starts_with('0') =>
            {
                (digits.parse().ok(), digits.to_string())
            }
            _ => return Ok(None),
        },
    };
    let lettered = matches!(name, "x" | "y" | "z");
    if lettered && dims > 3 {
        return Err(VariableError {
            what: format!("variable '{name}' is not available in a {dims}-dimensional domain"),
            hint: format!(
                "x, y, z name the coordinates of domains of up to 3 dimensions; use {}",
                variable_list(dims)
            ),
        });
    }
    match number {
        Some(k) if k <= dims => Ok(Some(k - 1)),
        _ => Err(VariableError {
            what: format!("variable '{name}' needs a {text}-dimensional domain"),
            hint: if dims == 0 {
                "this expression is a constant: it can use no variables".to_string()
            } else {
                format!(
                    "this integral is {dims}-dimensional: use {}",
                    variable_list(dims)
                )
            },
        }),
    }
}

/// The variables of a `dims`-dimensional domain, as messages list them.
pub(crate) fn variable_list(dims: usize) -> String {
    match dims {
        0 => "no variables".to_string(),
        1 => "x (or x1)".to_string(),
        2 => "x, y (or x1, x2)".to_string(),
        3 => "x, y, z (or x1, x2, x3)".to_string(),
        n => format!("x1..x{n}"),
    }
}

/// The hint for an unknown function: the closest spelling, or the whole list.
pub(crate) fn unknown_function_hint(name: &str) -> String {
    match closest(name, all_function_spellings()) {
        Some(best) => format!("did you mean '{best}'?"),
        None => format!(
            "the functions are {}",
            function_names().collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The hint for an unknown name used as a value: the closest variable, parameter or
/// constant, or the list of valid names.
pub(crate) fn unknown_name_hint(name: &str, dims: usize, parameters: &[String]) -> String {
    let mut candidates: Vec<String> = (1..=dims.min(64)).map(|k| format!("x{k}")).collect();
    if dims <= 3 {
        candidates.extend(["x", "y", "z"].iter().take(dims).map(|s| s.to_string()));
    }
    candidates.extend(parameters.iter().cloned());
    candidates.extend(["pi".to_string(), "e".to_string()]);
    if let Some(best) = closest(name, candidates.iter().map(String::as_str)) {
        return format!("did you mean '{best}'?");
    }
    let variables = if dims == 0 {
        "no variables (the expression is a constant)".to_string()
    } else {
        format!("the variables {}", variable_list(dims))
    };
    let parameters = match parameters {
        [] => String::new(),
        [one] => format!(", the parameter {one}"),
        many => format!(", the parameters {}", many.join(", ")),
    };
    format!(
        "valid names are {variables}{parameters}, the constants pi and e, and the functions {}",
        function_names().collect::<Vec<_>>().join(", ")
    )
}

/// Why `name` cannot be a parameter: it is not a plain name, or the language already gives it
/// a meaning (a variable of some domain, a constant, a function). `None` when it can.
pub(crate) fn parameter_name_problem(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !plain {
        return Some(format!(
            "parameter name '{name}' is not a name: use letters, digits and '_', starting \
             with a letter"
        ));
    }
    if constant(name).is_some() {
        return Some(format!("parameter name '{name}' is the constant {name}"));
    }
    if function(name).is_some() {
        return Some(format!("parameter name '{name}' is the function {name}"));
    }
    // x, y, z and x1, x2, ... name coordinates in some domain, whatever this one's size.
    if !matches!(variable(name, usize::MAX / 2), Ok(None)) {
        return Some(format!(
            "parameter name '{name}' is a variable name (x, y, z, x1, x2, ... name coordinates)"
        ));
    }
    None
}

/// The candidate within a small edit distance of `name` (the first of the nearest).
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let name: Vec<char> = name.to_lowercase().chars().collect();
    let limit = if name.len() <= 2 { 1 } else { 2 };
    candidates
        .filter_map(|c| {
            let cc: Vec<char> = c.chars().collect();
            // A distance cannot be smaller than the difference in length; skip the rest early
            // so that a huge identifier costs nothing.
            if cc.len().abs_diff(name.len()) > limit {
                return None;
            }
            let d = edit_distance(&name, &cc);
            // A suggestion as long as the whole name would be a guess, not a correction.
            (d <= limit && d < name.len() && d < cc.len().max(2)).then_some((d, c))
        })
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Levenshtein distance: insertions, deletions and substitutions each cost one.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != cb);
            row[j + 1] = substitute.min(prev[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve() {
        assert_eq!(function("log"), Some(Function::Unary(Func::Ln)));
        assert_eq!(function("ln"), Some(Function::Unary(Func::Ln)));
        assert_eq!(function("atan2"), Some(Function::Binary(Func2::Atan2)));
        assert_eq!(function("sine"), None);
    }

    #[test]
    fn variables_by_dimension() {
        assert_eq!(variable("x", 1).ok(), Some(Some(0)));
        assert_eq!(variable("z", 3).ok(), Some(Some(2)));
        assert_eq!(variable("x7", 7).ok(), Some(Some(6)));
        assert_eq!(variable("x0", 7).ok(), Some(None));
        assert_eq!(variable("xy", 7).ok(), Some(None));
        assert!(variable("y", 1).is_err());
        assert!(variable("y", 4).is_err());
        assert!(variable("x99999999999999999999999", 4).is_err());
    }

    #[test]
    fn suggestions() {
        assert_eq!(unknown_function_hint("sine"), "did you mean 'sin'?");
        assert_eq!(unknown_function_hint("sqr"), "did you mean 'sqrt'?");
        assert!(unknown_function_hint("frobnicate").starts_with("the functions are sqrt"));
        assert_eq!(unknown_name_hint("Pi", 1, &[]), "did you mean 'pi'?");
        assert!(unknown_name_hint("t", 0, &[]).starts_with("valid names are no variables"));
        let p = ["alpha".to_string()];
        assert_eq!(unknown_name_hint("alpa", 1, &p), "did you mean 'alpha'?");
        assert!(unknown_name_hint("q", 1, &p).contains("the parameter alpha"));
    }

    #[test]
    fn parameter_names() {
        assert_eq!(parameter_name_problem("p"), None);
        assert_eq!(parameter_name_problem("sigma_2"), None);
        assert_eq!(parameter_name_problem("x0"), None);
        for taken in ["x", "y", "z", "x1", "x12", "e", "pi", "sin", "log", "pow"] {
            assert!(parameter_name_problem(taken).is_some(), "{taken}");
        }
        assert!(parameter_name_problem("2p").is_some());
        assert!(parameter_name_problem("").is_some());
        assert!(parameter_name_problem("a-b").is_some());
    }

    #[test]
    fn distance() {
        let d = |a: &str, b: &str| {
            edit_distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("", "abc"), 3);
        assert_eq!(d("sin", "sin"), 0);
    }
}
