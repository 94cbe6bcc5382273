//! Stable sorting in little code. The standard library's sorts are fast and large: each element
//! type and comparison a program sorts by gets its own copy, several kilobytes each, which for
//! Limette's few dozen small sorts (lists on pages, keys of a document, ids of a store) added
//! up to a tenth of the static binary's budget. Here the order is computed once, on indices,
//! by one shared sort whose comparison is a function pointer, then applied in place: a sort a
//! type costs a few hundred bytes, and stays O(n log n) comparisons plus O(n) moves.
use std::cmp::Ordering;

/// Sorts `v` by `cmp`, stably (equal elements keep their order).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    apply(v, order);
}

/// Sorts `v` in its natural order, stably.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` by a key, stably.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// The indices `0..n` in the order `cmp` gives their elements: the one instance of the
/// standard library's sort in the program's own code.
fn order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|a, b| cmp(*a, *b));
    idx
}

/// Puts the element at `order[i]` at position `i`, following each cycle of the permutation
/// once (a visited position is marked with `usize::MAX`).
fn apply<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut cur = start;
        loop {
            let next = order[cur];
            if next == usize::MAX {
                break;
            }
            order[cur] = usize::MAX;
            if next == start {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_library_does_and_keeps_equal_elements_in_order() {
        let mut seed = 7u64;
        for len in [0usize, 1, 2, 3, 10, 100, 1000] {
            let mut v: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 59) as u8, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);
            sort_by_key(&mut v, |p| p.0);
            assert_eq!(v, want, "length {len}");
        }
        let mut words = vec!["pear", "apple", "fig", "apple"];
        sort(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "pear"]);
        let mut rev = vec![1, 3, 2];
        sort_by(&mut rev, |a, b| b.cmp(a));
        assert_eq!(rev, [3, 2, 1]);
    }
}
