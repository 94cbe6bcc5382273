//! The fuzz targets (`fuzz/targets.rs`) in CI, without the nightly toolchain: every kept corpus
//! file, then a bounded pseudo-random walk (seeded, reproducible) of mutations of those files
//! through each parser. `make fuzz` explores for real; this keeps what it found fixed.
#[path = "../../fuzz/targets.rs"]
mod targets;

use std::path::Path;

/// xorshift64*: small, deterministic, good enough to mutate bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to the parsers under test.
const INTERESTING: &[u8] = b"[]{}=;&%+\\\n\r\"'<>/.$()!~#0aZ\x00\xff\xc3";

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(v.len() + 1);
        let byte = INTERESTING[rng.below(INTERESTING.len())];
        match rng.below(4) {
            0 => v.insert(at, byte),
            1 if at < v.len() => {
                v.remove(at);
            }
            2 if at < v.len() => v[at] = byte,
            _ => {
                let end = (at + rng.below(16)).min(v.len());
                let piece = v[at..end].to_vec();
                v.splice(at..at, piece);
            }
        }
    }
    v
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

#[test]
fn every_parser_survives_its_corpus_and_a_random_walk() {
    for (name, target) in targets::ALL {
        let seeds = corpus(name);
        assert!(!seeds.is_empty(), "no corpus for {name}");
        for s in &seeds {
            target(s);
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
        for i in 0..3000 {
            let input = mutate(&seeds[i % seeds.len()], &mut rng);
            target(&input);
        }
    }
}

#[test]
fn pathological_inputs_are_handled() {
    let deep_json = "[".repeat(50_000);
    let deep_rule = "(".repeat(50_000);
    let deep_xml = "<a>".repeat(20_000);
    for (name, target) in targets::ALL {
        for input in [
            deep_json.as_bytes(),
            deep_rule.as_bytes(),
            deep_xml.as_bytes(),
            b"",
            b"\xff\xfe\x00",
        ] {
            let _ = name;
            target(input);
        }
    }
}
