//! Damaged Arrow IPC files whose lengths claim more memory than the file could
//! hold are refused before the Arrow reader allocates the claim: no single
//! allocation of the parse passes 64 MiB (a counting allocator in this test binary
//! watches every one). Before the check, `arrow_tail_length.arrows` (917 bytes,
//! found by the fuzzer: a stream's last bytes read as a legacy 4-byte length)
//! made the reader allocate 1.8 GB before failing.
#![cfg(feature = "columnar")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use calibscope_io::{parse_bytes, ErrorCode, Options};

/// The system allocator, remembering the largest request.
struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

#[test]
fn length_claims_past_the_end_are_refused_before_they_are_allocated() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/bad");
    for name in [
        "arrow_tail_length.arrows",
        "arrow_bad_offset.arrows",
        "arrow_lz4_bomb.feather",
        "arrow_lz4_bomb_block.feather",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        LARGEST.store(0, Ordering::Relaxed);
        let e = parse_bytes(name, &bytes, &Options::default()).unwrap_err();
        let largest = LARGEST.load(Ordering::Relaxed);
        assert_eq!(e.errors[0].code, ErrorCode::ColumnarBad, "{name}");
        assert!(
            largest <= 64 << 20,
            "{name}: an allocation of {largest} bytes for a {}-byte file",
            bytes.len()
        );
    }
}
