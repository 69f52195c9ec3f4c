//! The fuzz corpus, replayed: every saved input of each fuzz target (fuzz/corpus/<target>/) runs
//! through the target's body (fuzz/harness.rs) in the ordinary test run, so that an input that
//! once failed, or once reached new code, keeps being checked on every machine. Fuzzing proper
//! (new inputs, libFuzzer on nightly) is scripts/fuzz.sh.

#[path = "../fuzz/harness.rs"]
mod harness;

use std::path::Path;

/// Runs every file of fuzz/corpus/<target> through `body`; returns how many there were.
fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).expect("a corpus file");
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(
            outcome.is_ok(),
            "fuzz target '{target}' fails on {} ({:?})",
            path.display(),
            String::from_utf8_lossy(&data)
        );
    }
    files.len()
}

#[test]
fn expr_corpus() {
    assert!(replay("expr", harness::expr) > 0);
}

#[test]
fn decimal_corpus() {
    assert!(replay("decimal", harness::decimal) > 0);
}

#[test]
fn functions_corpus() {
    assert!(replay("functions", harness::functions) > 0);
}

#[test]
fn integral_corpus() {
    assert!(replay("integral", harness::integral) > 0);
}
