//! Every log event of a test process, as text, for tests that check what is never logged (a
//! token, a hash, a secret): [`install`] once in `main`, then read [`LOG`].

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Every log event of the process, at every level, as text: `LEVEL target: field=value …`.
pub static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Makes [`Capture`] the process's subscriber.
pub fn install() {
    let _ = tracing::subscriber::set_global_default(Capture(AtomicU64::new(0)));
}

/// A subscriber that keeps each event's and span's fields as text in [`LOG`].
struct Capture(AtomicU64);

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut text = String::new();
        span.record(&mut Fields(&mut text));
        LOG.lock().unwrap().push(text);
        tracing::span::Id::from_u64(self.0.fetch_add(1, Ordering::SeqCst) + 1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut text = String::new();
        values.record(&mut Fields(&mut text));
        LOG.lock().unwrap().push(text);
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let metadata = event.metadata();
        let mut text = format!("{} {}: ", metadata.level(), metadata.target());
        event.record(&mut Fields(&mut text));
        LOG.lock().unwrap().push(text);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push_str(&format!("{}={value} ", field.name()));
    }
}
