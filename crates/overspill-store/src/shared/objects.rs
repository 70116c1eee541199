//! [`Objects`] on the `object_store` crate: S3 and the stores that speak it, and a local
//! directory, named by a URL
//! (docs/storage.md#a-shared-store).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig};

use super::{Listing, Objects, ObjectsError};

/// Chunks of a result received and not yet written: a bound on what a slow disk keeps in
/// memory while the store keeps sending.
const CHUNKS_IN_FLIGHT: usize = 8;

/// How long a readiness check waits for the store: below the 1 s a Kubernetes probe waits.
const CHECK_TIMEOUT: Duration = Duration::from_millis(800);

/// How often, and for how long, a failed request is tried again: a store that does not answer
/// must fail a call within seconds, not the library's three minutes.
fn retries() -> RetryConfig {
    RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(15),
        ..RetryConfig::default()
    }
}

/// Opens the objects `url` names: `s3://bucket[/prefix]` (also `s3a://`), for S3 and every
/// store that speaks it, or `file:///dir`. Credentials, region and endpoint come from the
/// environment as `object_store` reads them (`AWS_ENDPOINT`, `AWS_ALLOW_HTTP`,
/// `AWS_ACCESS_KEY_ID`, …); nothing here prints them. The store is not contacted:
/// [`Objects::check`] does.
///
/// # Errors
///
/// [`ObjectsError`] for a URL that is not one of these, or a store the environment does not
/// configure completely.
pub fn open_url(url: &str) -> Result<Arc<dyn Objects>, ObjectsError> {
    // HTTPS on ring, as every client of the workspace (a provider already chosen stays).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let parsed = url::Url::parse(url).map_err(|error| ObjectsError {
        location: super::redacted(url),
        what: format!("is not a URL ({error})"),
        advice: "give one such as s3://bucket/prefix or file:///dir",
    })?;
    let location = shown(&parsed);
    let refused = |what: String| ObjectsError {
        location: location.clone(),
        what,
        advice: "see docs/storage.md#a-shared-store for the URL forms and the variables each reads",
    };
    let built = |result: object_store::Result<Arc<dyn ObjectStore>>| {
        result.map_err(|error| refused(format!("cannot be set up: {error}")))
    };
    let bucket_url = format!(
        "{}://{}",
        parsed.scheme(),
        parsed.host_str().unwrap_or_default()
    );
    // Each cloud's builder, configured from the environment, for `url`, with our retries.
    macro_rules! cloud {
        ($builder:ty, $url:expr) => {
            built(
                <$builder>::from_env()
                    .with_url($url)
                    .with_retry(retries())
                    .build()
                    .map(|s| Arc::new(s) as _),
            )?
        };
    }
    let store: Arc<dyn ObjectStore> = match parsed.scheme() {
        "s3" | "s3a" => cloud!(object_store::aws::AmazonS3Builder, &bucket_url),
        "file" => {
            let dir = parsed
                .to_file_path()
                .map_err(|()| refused("does not name a local directory".to_owned()))?;
            built(
                object_store::local::LocalFileSystem::new_with_prefix(&dir)
                    .map(|s| Arc::new(s) as _),
            )?
        }
        other => {
            return Err(refused(format!(
                "has the scheme `{other}`, which is not one of s3, s3a, file (Google Cloud \
                 Storage answers S3 requests at its XML API's endpoint)"
            )));
        }
    };
    // A directory's whole path is the store; an S3 URL's path is the prefix below its bucket.
    let prefix = match parsed.scheme() {
        "file" => String::new(),
        _ => parsed.path().trim_matches('/').to_owned(),
    };
    Ok(Arc::new(Bucket::new(store, prefix, location)?))
}

/// The URL as shown in messages: no user, password, query or fragment.
fn shown(url: &url::Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// The objects of one URL, with the thread their requests run on.
struct Bucket {
    store: Arc<dyn ObjectStore>,
    /// Below which every key goes (no leading or trailing `/`; empty for none).
    prefix: String,
    location: String,
    runtime: Runtime,
}

/// A runtime that shuts down without waiting when dropped, wherever that is (a runtime
/// dropped in an asynchronous context would panic).
struct Runtime(Option<tokio::runtime::Runtime>);

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

impl Bucket {
    /// `store`'s objects below `prefix`, shown as `location`, with a thread for their requests.
    fn new(
        store: Arc<dyn ObjectStore>,
        prefix: String,
        location: String,
    ) -> Result<Bucket, ObjectsError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("overspill-objects")
            .enable_all()
            .build()
            .map_err(|error| ObjectsError {
                location: location.clone(),
                what: format!("cannot be used: no thread for its requests ({error})"),
                advice: "the process is at its limit of threads; raise it or stop others",
            })?;
        Ok(Bucket {
            store,
            prefix,
            location,
            runtime: Runtime(Some(runtime)),
        })
    }

    fn key(&self, key: &str) -> Key {
        Key::from(super::join_key(&self.prefix, key))
    }

    /// Runs `work` on the objects' thread and waits for it on this one: callable from any
    /// thread, an asynchronous one included (which it then blocks, as any file I/O would).
    fn run<T: Send + 'static>(
        &self,
        work: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, ObjectsError> {
        let gone = || self.failed("cannot be used: its I/O thread has stopped".to_owned());
        let runtime = self.runtime.0.as_ref().ok_or_else(gone)?;
        let (sender, receiver) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = sender.send(work.await);
        });
        receiver.recv().map_err(|_| gone())
    }

    fn failed(&self, what: String) -> ObjectsError {
        ObjectsError {
            location: self.location.clone(),
            what,
            advice: "check that it is reachable from here, that the bucket exists and that the \
                     credentials in the environment may read and write it",
        }
    }

    fn error(&self, doing: &str, error: &object_store::Error) -> ObjectsError {
        let what = match error {
            object_store::Error::PermissionDenied { .. } => {
                format!("refused to {doing} (permission denied)")
            }
            object_store::Error::Unauthenticated { .. } => {
                format!("refused to {doing}: the credentials were not accepted")
            }
            other => {
                let line = one_line(other);
                match (
                    between(&line, "<Code>", "</Code>"),
                    between(&line, "<Message>", "</Message>"),
                ) {
                    (Some(code), Some(message)) => {
                        format!("refused to {doing}: {code} ({message})")
                    }
                    (Some(code), None) => format!("refused to {doing}: {code}"),
                    _ => format!("could not {doing}: {line}"),
                }
            }
        };
        self.failed(what)
    }
}

/// The text between `start` and `end` in `text`, e.g. an S3 error's `<Code>`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let to = text[from..].find(end)? + from;
    Some(&text[from..to])
}

/// An error and its causes on one line.
fn one_line(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !line.contains(&said) {
            line.push_str(": ");
            line.push_str(&said);
        }
        source = cause.source();
    }
    line.replace('\n', " ")
}

impl Objects for Bucket {
    fn location(&self) -> &str {
        &self.location
    }

    fn put_new(&self, key: &str, bytes: &[u8]) -> Result<(), ObjectsError> {
        let store = Arc::clone(&self.store);
        let key = self.key(key);
        let payload = PutPayload::from(bytes.to_vec());
        let done = self.run(async move {
            let create = PutOptions {
                mode: PutMode::Create,
                ..PutOptions::default()
            };
            match store.put_opts(&key, payload.clone(), create).await {
                Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => Ok(()),
                // A store without create-only puts: the key is content-addressed, so a put
                // over an object already there writes the same bytes.
                Err(
                    object_store::Error::NotImplemented { .. }
                    | object_store::Error::NotSupported { .. },
                ) => store.put(&key, payload).await.map(|_| ()),
                Err(error) => Err(error),
            }
        })?;
        done.map_err(|error| self.error("store a result", &error))
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, ObjectsError> {
        let store = Arc::clone(&self.store);
        let key = self.key(key);
        let got = self.run(async move {
            match store.get(&key).await {
                // One buffer, handed over without a copy when it is the response's only one.
                Ok(found) => found.bytes().await.map(|bytes| Some(Vec::from(bytes))),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(error),
            }
        })?;
        got.map_err(|error| self.error("give a stored result back", &error))
    }

    fn list(&self, dir: &str) -> Result<Listing, ObjectsError> {
        let store = Arc::clone(&self.store);
        let at = self.key(dir);
        let listed = self.run(async move { store.list_with_delimiter(Some(&at)).await })?;
        let listed = listed.map_err(|error| self.error("list the bucket", &error))?;
        // The keys come back with the URL's prefix; the caller's keys are below it.
        let ours = |key: &Key| -> String {
            let key = key.as_ref();
            match self.prefix.is_empty() {
                true => key.to_owned(),
                false => key
                    .strip_prefix(&self.prefix)
                    .map_or(key, |rest| rest.trim_start_matches('/'))
                    .to_owned(),
            }
        };
        Ok(Listing {
            keys: listed
                .objects
                .iter()
                .map(|object| ours(&object.location))
                .collect(),
            dirs: listed.common_prefixes.iter().map(ours).collect(),
        })
    }

    fn get_into(&self, key: &str, out: &mut dyn std::io::Write) -> Result<bool, ObjectsError> {
        use futures_util::StreamExt as _;
        let store = Arc::clone(&self.store);
        let key = self.key(key);
        // The response's chunks come over a channel of a few, to be written on this thread as
        // they arrive; the request runs on the objects' thread.
        let (chunks, arriving) = std::sync::mpsc::sync_channel(CHUNKS_IN_FLIGHT);
        let runtime =
            self.runtime.0.as_ref().ok_or_else(|| {
                self.failed("cannot be used: its I/O thread has stopped".to_owned())
            })?;
        runtime.spawn(async move {
            let found = match store.get(&key).await {
                Ok(found) => found,
                Err(error) => {
                    tokio::task::block_in_place(|| chunks.send(Err(error)).is_ok());
                    return;
                }
            };
            let mut stream = found.into_stream();
            // A full channel waits for the caller's disk: the runtime's other work moves to
            // another thread meanwhile, so no put, get or check waits behind a slow write.
            let send = |item| tokio::task::block_in_place(|| chunks.send(item).is_ok());
            while let Some(chunk) = stream.next().await {
                let failed = chunk.is_err();
                if !send(chunk.map(Some)) || failed {
                    return;
                }
            }
            send(Ok(None));
        });
        loop {
            match arriving.recv() {
                Ok(Ok(Some(chunk))) => out.write_all(&chunk).map_err(|error| {
                    self.failed(format!(
                        "was read, but its copy could not be written: {error}"
                    ))
                })?,
                Ok(Ok(None)) => return Ok(true),
                Ok(Err(object_store::Error::NotFound { .. })) => return Ok(false),
                Ok(Err(error)) => return Err(self.error("give a stored result back", &error)),
                Err(_) => {
                    return Err(self.failed("stopped answering mid-result".to_owned()));
                }
            }
        }
    }

    fn check(&self) -> Result<(), ObjectsError> {
        let store = Arc::clone(&self.store);
        let prefix = (!self.prefix.is_empty()).then(|| Key::from(self.prefix.as_str()));
        let checked = self.run(async move {
            tokio::time::timeout(CHECK_TIMEOUT, store.list_with_delimiter(prefix.as_ref())).await
        })?;
        match checked {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(self.error("list the bucket", &error)),
            Err(_) => Err(self.failed(format!(
                "did not answer within {} ms",
                CHECK_TIMEOUT.as_millis()
            ))),
        }
    }
}

#[cfg(test)]
mod tests;
