//! Transparent huge pages for the large column buffers (Linux only; a no-op
//! elsewhere, the web worker included).
//!
//! A big file's columns are tens to hundreds of MB written once, front to back.
//! With 4 KiB pages every 4 KiB written costs a page fault; the kernel's `madvise`
//! mode for transparent huge pages (Debian's default) backs a region with 2 MiB
//! pages only when the region asks. Asking cut the serial read of the 127 MB
//! benchmark CSV from ~0.107 s to ~0.089 s, and the parallel one from ~0.062 s to
//! ~0.054 s (BENCHMARKS.md, "Reading files").

/// Asks the kernel to back the unused capacity of `v` with huge pages: the 2 MiB
/// aligned part of it, so nothing outside `v`'s allocation is touched. Capacities
/// under 2 MiB, a kernel without transparent huge pages and every other platform:
/// nothing happens. The contents of `v` never change.
pub(crate) fn prefer_huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let spare = v.spare_capacity_mut();
        let start = spare.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(spare);
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the spare capacity of `v`'s own
            // allocation, and MADV_HUGEPAGE only changes how the kernel backs those
            // pages, never what they hold. The result is advisory: a kernel that
            // refuses (THP off) leaves 4 KiB pages, which is fine.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Reserves room for exactly `additional` more elements in `v`
/// ([`Vec::reserve_exact`]), asking for huge pages for that room
/// ([`prefer_huge_pages`]): for a buffer whose final size is known (or estimated)
/// before it is written.
pub(crate) fn reserve_exact_on_huge_pages<T>(v: &mut Vec<T>, additional: usize) {
    v.reserve_exact(additional);
    prefer_huge_pages(v);
}

#[cfg(test)]
mod tests {
    use super::{prefer_huge_pages, reserve_exact_on_huge_pages};

    #[test]
    fn contents_and_capacity_stay() {
        for (len, cap) in [(0, 0), (3, 10), (1000, 3 << 20), (5 << 20, 9 << 20)] {
            let mut v: Vec<u32> = (0..len as u32).collect();
            v.reserve_exact(cap);
            let before = (v.as_ptr(), v.capacity());
            prefer_huge_pages(&mut v);
            assert_eq!((v.as_ptr(), v.capacity()), before);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
            v.extend(0..1000);
            assert_eq!(v.len(), len + 1000);
        }
    }

    #[test]
    fn reserving_keeps_contents_and_gives_the_room() {
        for (len, more) in [(0, 0), (5, 0), (3, 10), (1000, 3 << 20)] {
            let mut v: Vec<u64> = (0..len as u64).collect();
            reserve_exact_on_huge_pages(&mut v, more);
            assert!(v.capacity() >= len + more);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
        }
    }

    /// The kilobytes of `AnonHugePages` in the mapping of `/proc/self/smaps` that
    /// holds `addr`.
    #[cfg(target_os = "linux")]
    fn huge_kb_at(addr: usize) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = first.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                {
                    inside = (a..b).contains(&addr);
                    continue;
                }
            }
            if inside {
                if let Some(kb) = line.strip_prefix("AnonHugePages:") {
                    return kb.trim().trim_end_matches("kB").trim().parse().ok();
                }
            }
        }
        None
    }

    /// Where the kernel gives huge pages on request (`madvise` mode, Debian's
    /// default), a buffer that asked is backed by them once written.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_written_buffer_gets_huge_pages() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
        if !mode.is_ok_and(|m| m.contains("[madvise]")) {
            eprintln!("transparent huge pages not in madvise mode: skipped");
            return;
        }
        let mut v: Vec<u64> = Vec::with_capacity(4 << 20); // 32 MiB
        prefer_huge_pages(&mut v);
        v.extend(0..4 << 20);
        let kb = huge_kb_at(v.as_ptr() as usize + (16 << 20)).expect("the buffer's mapping");
        assert!(kb >= 2048, "{kb} kB of huge pages in the buffer's mapping");
    }
}
