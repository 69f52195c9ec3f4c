//! The compiled-kernel cache: keys, the cache directory and the files in it.
//!
//! A key is a 128-bit FNV-1a hash of everything that decides the machine code: the final
//! source (integrand spliced in), the NVRTC options, the target architecture and the NVRTC
//! version. A file holds a magic line, the key and the payload length before the payload, so
//! that a truncated or foreign file is a miss, never a wrong kernel. Writes go to a temporary
//! file renamed into place, so concurrent processes never see half a file.
#![deny(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that overrides the cache directory; an empty value turns the disk
/// cache off.
pub const CACHE_DIR_VAR: &str = "HPQUAD_CACHE_DIR";

const MAGIC: &[u8; 10] = b"HPQCUBIN1\n";

/// The identity of one compiled module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(u128);

impl CacheKey {
    /// Hashes the inputs that determine the compiled code. Each field is length-prefixed so
    /// that moving text from one field to the next changes the key.
    pub fn new(source: &str, options: &[String], arch: &str, nvrtc_version: (i32, i32)) -> Self {
        let mut h = Fnv128::new();
        h.field(source.as_bytes());
        h.field(&(options.len() as u64).to_le_bytes());
        for o in options {
            h.field(o.as_bytes());
        }
        h.field(arch.as_bytes());
        h.field(&nvrtc_version.0.to_le_bytes());
        h.field(&nvrtc_version.1.to_le_bytes());
        CacheKey(h.0)
    }

    /// 32 hexadecimal digits, used as the file name.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

/// FNV-1a with the 128-bit parameters (a stable hash: std's `DefaultHasher` may change between
/// Rust releases, which would orphan every cached file).
struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013b;

    fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.0 ^= b as u128;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn field(&mut self, data: &[u8]) {
        self.bytes(&(data.len() as u64).to_le_bytes());
        self.bytes(data);
    }
}

/// The directory compiled kernels are cached in: `$HPQUAD_CACHE_DIR` if set (none if set but
/// empty), else the user's cache directory (`$XDG_CACHE_HOME`, `~/.cache`, `~/Library/Caches`
/// on macOS, `%LOCALAPPDATA%` on Windows) with `hpquad/kernels` below it.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(CACHE_DIR_VAR) {
        return if dir.is_empty() {
            None
        } else {
            Some(PathBuf::from(dir))
        };
    }
    user_cache_dir().map(|d| d.join("hpquad").join("kernels"))
}

fn user_cache_dir() -> Option<PathBuf> {
    let non_empty = |v: &str| {
        std::env::var_os(v)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(windows) {
        return non_empty("LOCALAPPDATA");
    }
    if cfg!(target_os = "macos") {
        return non_empty("HOME").map(|h| h.join("Library").join("Caches"));
    }
    non_empty("XDG_CACHE_HOME").or_else(|| non_empty("HOME").map(|h| h.join(".cache")))
}

/// The on-disk half of the cache. Every failure is a miss or a skipped write: a cache that
/// cannot be used costs a compilation, never a result.
#[derive(Clone, Debug)]
pub struct DiskCache {
    dir: Option<PathBuf>,
}

impl DiskCache {
    /// A cache in `dir`, or none.
    pub fn new(dir: Option<PathBuf>) -> Self {
        DiskCache { dir }
    }

    /// The file a key is kept in.
    pub fn path(&self, key: CacheKey) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{}.cubin", key.hex())))
    }

    /// The payload stored under `key`, if a complete file for exactly this key is there.
    pub fn load(&self, key: CacheKey) -> Option<Vec<u8>> {
        let data = std::fs::read(self.path(key)?).ok()?;
        decode(&data, key)
    }

    /// Stores a payload; returns whether the file was written.
    pub fn store(&self, key: CacheKey, payload: &[u8]) -> bool {
        let (Some(dir), Some(path)) = (self.dir.as_ref(), self.path(key)) else {
            return false;
        };
        write_atomically(dir, &path, &encode(key, payload)).is_ok()
    }
}

fn encode(key: CacheKey, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + 24 + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn decode(data: &[u8], key: CacheKey) -> Option<Vec<u8>> {
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let (stored_key, rest) = rest.split_at_checked(16)?;
    let (len, payload) = rest.split_at_checked(8)?;
    let stored_key = u128::from_le_bytes(stored_key.try_into().ok()?);
    let len = u64::from_le_bytes(len.try_into().ok()?);
    (stored_key == key.0 && len == payload.len() as u64).then(|| payload.to_vec())
}

fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A name no other writer uses: other processes differ in the id, other threads of this
    // one in the counter.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(src: &str) -> CacheKey {
        CacheKey::new(src, &["--fmad=false".into()], "sm_90", (13, 0))
    }

    #[test]
    fn every_input_changes_the_key() {
        let base = key("k");
        assert_eq!(base, key("k"));
        assert_ne!(base, key("k "));
        assert_ne!(
            base,
            CacheKey::new("k", &["--fmad=true".into()], "sm_90", (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("k", &["--fmad=false".into()], "sm_80", (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("k", &["--fmad=false".into()], "sm_90", (13, 1))
        );
        // Moving text between fields is a different key.
        let a = CacheKey::new("ab", &["c".into()], "x", (1, 0));
        let b = CacheKey::new("a", &["bc".into()], "x", (1, 0));
        assert_ne!(a, b);
    }

    #[test]
    fn the_hash_is_stable() {
        // FNV-1a-128 of the empty input is its offset basis; a changed constant shows here.
        assert_eq!(Fnv128::new().0, 0x6c62272e07bb014262b821756295c58d);
        let mut h = Fnv128::new();
        h.bytes(b"a");
        assert_eq!(h.0, 0xd228cb696f1a8caf78912b704e4a8964);
    }

    #[test]
    fn round_trip_and_rejection() {
        let dir = std::env::temp_dir().join(format!("hpquad-cache-test-{}", std::process::id()));
        let cache = DiskCache::new(Some(dir.clone()));
        let k = key("round trip");
        assert_eq!(cache.load(k), None);
        assert!(cache.store(k, b"payload"));
        assert_eq!(cache.load(k).as_deref(), Some(&b"payload"[..]));
        // A truncated file is a miss.
        let path = cache.path(k).unwrap();
        let full = std::fs::read(&path).unwrap();
        std::fs::write(&path, &full[..full.len() - 1]).unwrap();
        assert_eq!(cache.load(k), None);
        // A file under another key's name is a miss.
        let other = key("other");
        std::fs::write(cache.path(other).unwrap(), &full).unwrap();
        assert_eq!(cache.load(other), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_directory_means_no_cache() {
        let cache = DiskCache::new(None);
        assert!(!cache.store(key("x"), b"y"));
        assert_eq!(cache.load(key("x")), None);
    }
}
