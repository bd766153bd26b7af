//! The process's allocator: the system's, with large blocks on huge pages.
//!
//! A `simulate` of a 1,000,000-row trace touches about 270 MB once (the
//! file's text, the rows, each request's sizes). On 4 KiB pages that is
//! about 69,000 page faults, a third of the command's CPU time spent in the
//! kernel. A block of [`HUGE_FROM`] bytes or more is advised onto
//! transparent huge pages (`madvise(MADV_HUGEPAGE)`, Linux), so its 2 MiB
//! stretches fault in whole: about 8,500 faults, the same bytes. Where the
//! system keeps huge pages off (`never`) or on for everything (`always`),
//! the advice changes nothing; smaller blocks, most of them, are left as
//! the system allocator gives them.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size up are advised onto huge pages (at least one
/// whole 2 MiB page fits inside; a million-row trace's per-request
/// vectors are 8 MB each).
pub const HUGE_FROM: usize = 4 << 20;

/// The size of a transparent huge page on x86-64 and most arm64 kernels;
/// advice over a range that holds none of them whole does nothing.
const HUGE_PAGE: usize = 2 << 20;

/// [`System`], with each block of at least [`HUGE_FROM`] bytes advised onto
/// huge pages when it is allocated or grown.
pub struct HugePages;

// SAFETY: every call is `System`'s, with the same arguments; `advise` only
// gives the kernel advice about pages inside the block just returned.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }
}

/// Advises the whole huge pages inside the block at `p` of `len` bytes
/// onto huge pages, if it is large enough.
#[inline]
fn advise(p: *mut u8, len: usize) {
    if p.is_null() || len < HUGE_FROM {
        return;
    }
    let (start, end) = huge_pages_within(p as usize, len);
    if end > start {
        // SAFETY: `start..end` lies inside the block the allocator just
        // returned, which this process owns; MADV_HUGEPAGE changes how its
        // pages are backed, never their contents. A kernel that does not
        // know the advice says so, and the block is used as it is.
        let _ = unsafe {
            rustix::mm::madvise(
                p.wrapping_add(start - p as usize).cast(),
                end - start,
                rustix::mm::Advice::LinuxHugepage,
            )
        };
    }
}

/// The addresses of the first and past the last whole huge page inside
/// `len` bytes from `at` (`start >= end` when none fits).
fn huge_pages_within(at: usize, len: usize) -> (usize, usize) {
    let start = at.next_multiple_of(HUGE_PAGE);
    let end = (at + len) / HUGE_PAGE * HUGE_PAGE;
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_a_block_are_advised() {
        let mb = 1 << 20;
        // A block from 1 MiB to 9 MiB holds the pages at 2, 4 and 6 MiB.
        assert_eq!(huge_pages_within(mb, 8 * mb), (2 * mb, 8 * mb));
        // Aligned at both ends: every page.
        assert_eq!(huge_pages_within(4 * mb, 8 * mb), (4 * mb, 12 * mb));
        // A block inside one huge page holds none whole.
        let (start, end) = huge_pages_within(2 * mb + 16, mb);
        assert!(start >= end);
    }

    /// The `smaps` lines of the mapping that holds `at`.
    fn mapping_of(at: usize) -> Vec<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut lines = smaps.lines().peekable();
        let mut out = Vec::new();
        while let Some(head) = lines.next() {
            let range = head.split_whitespace().next().unwrap_or("");
            let Some((lo, hi)) = range.split_once('-') else {
                continue;
            };
            let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            else {
                continue;
            };
            let inside = (lo..hi).contains(&at);
            while let Some(l) = lines.peek() {
                if l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.contains('-') && !w.ends_with(':'))
                {
                    break;
                }
                let l = lines.next().unwrap_or_default();
                if inside {
                    out.push(l.to_string());
                }
            }
            if inside {
                return out;
            }
        }
        out
    }

    #[test]
    fn a_large_block_is_advised_and_keeps_its_bytes_through_growth() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        let n = HUGE_FROM + 12_345;
        let layout = Layout::from_size_align(n, 8).expect("layout");
        // SAFETY: a non-zero layout; the block is written and read within
        // its size, grown with its own layout, and freed once.
        unsafe {
            let p = HugePages.alloc(layout);
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 7, n);
            let p = HugePages.realloc(p, layout, 3 * HUGE_FROM);
            assert!(!p.is_null());
            let bytes = std::slice::from_raw_parts(p, n);
            assert!(bytes.iter().all(|&b| b == 7));
            let (start, _) = huge_pages_within(p as usize, 3 * HUGE_FROM);
            if thp.contains("[never]") || thp.is_empty() {
                eprintln!(
                    "SKIPPED the advice check: transparent huge pages are off here ({thp:?})"
                );
            } else {
                // The kernel marks the advised mapping (`hg` in VmFlags).
                let mapping = mapping_of(start);
                let flags = mapping.iter().find(|l| l.starts_with("VmFlags:"));
                assert!(
                    flags.is_some_and(|f| f.split_whitespace().any(|w| w == "hg")),
                    "the block's mapping: {mapping:?}"
                );
            }
            HugePages.dealloc(
                p,
                Layout::from_size_align(3 * HUGE_FROM, 8).expect("layout"),
            );
        }
    }
}
