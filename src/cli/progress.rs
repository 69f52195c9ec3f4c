//! A spinner on stderr for work that runs longer than about a second: shown only when stderr
//! is a terminal, and never for quick work.

use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How long work may run before the spinner appears.
const DELAY: Duration = Duration::from_secs(1);

/// Runs `work`, showing `message` with a spinner and the elapsed time if it takes longer than
/// a second.
pub fn with_spinner<R: Send>(message: &str, work: impl FnOnce() -> R + Send) -> R {
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if finished.recv_timeout(DELAY).is_ok() {
                return;
            }
            // indicatif draws nothing when stderr is not a terminal.
            let spinner = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
                spinner.set_style(style);
            }
            spinner.set_message(message.to_string());
            spinner.enable_steady_tick(Duration::from_millis(100));
            let _ = finished.recv();
            spinner.finish_and_clear();
        });
        let result = work();
        let _ = done.send(());
        result
    })
}
