//! A bounded, seeded fuzz of `q7 run`'s argument and `.npy` path through the
//! library call it makes: random argument lists (tensors of random rank,
//! shape and dtype, numbers of every kind, wrong counts), random destination
//! shapes, and mutated `.npy` bytes. Every case must end in a report or a
//! one-line error; none may panic. (cargo-fuzz targets cover the parsers
//! without bound; this runs in the ordinary test suite.)

use std::time::{Duration, Instant};

use q7_sim::machine::RunLimits;
use q7_sim::op::{ArgValue, Destination, Number, OpLibrary, OpOptions, TensorArg};
use q7_target::DType;

use crate::run_support::*;

/// xorshift64*: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_shape(rng: &mut Rng) -> Vec<usize> {
    let rank = match rng.below(10) {
        0 => 9 + rng.below(4) as usize,
        _ => rng.below(5) as usize,
    };
    (0..rank)
        .map(|_| match rng.below(12) {
            0 => 0,
            1 => 1 << (20 + rng.below(30)),
            _ => 1 + rng.below(6) as usize,
        })
        .collect()
}

fn random_dtype(rng: &mut Rng) -> DType {
    DType::ALL[rng.below(DType::ALL.len() as u64) as usize]
}

#[test]
fn random_argument_lists_never_panic() {
    let relu = build(
        "relu_stream_api",
        &[("relu_forward", "relu_forward(Tensor _0) -> Tensor")],
        &["examples/relu_stream/relu.cpp"],
        false,
    );
    let library = OpLibrary::open(&relu, None).unwrap();
    let untyped = OpLibrary { schemas: None, ..library.clone() };
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let started = Instant::now();
    let mut ran = 0;
    for case in 0..400 {
        if started.elapsed() > Duration::from_secs(20) {
            break;
        }
        // Tensor bytes sized to the shape when small, else a short buffer
        // (the size check must refuse it, not read past it).
        let shapes: Vec<(DType, Vec<usize>)> =
            (0..rng.below(4)).map(|_| (random_dtype(&mut rng), random_shape(&mut rng))).collect();
        let buffers: Vec<Vec<u8>> = shapes
            .iter()
            .map(|(d, s)| {
                let bytes = s.iter().try_fold(d.size(), |n, &x| n.checked_mul(x)).filter(|&b| b <= 1 << 16);
                vec![0x3f; bytes.unwrap_or(rng.below(64) as usize)]
            })
            .collect();
        let mut values: Vec<ArgValue> = shapes
            .iter()
            .zip(&buffers)
            .map(|((dtype, shape), data)| {
                ArgValue::Tensor(TensorArg { name: "t".into(), dtype: *dtype, shape: shape.clone(), data })
            })
            .collect();
        for _ in 0..rng.below(3).saturating_sub(1) {
            values.push(match rng.below(5) {
                0 => ArgValue::Scalar(f64::from_bits(rng.next())),
                1 => ArgValue::Int(rng.next() as i64),
                2 => ArgValue::Double(-1.5),
                3 => ArgValue::Number(Number::Int(rng.next() as i64)),
                _ => ArgValue::Number(Number::Float(f64::from_bits(rng.next()))),
            });
        }
        if rng.below(8) == 0 {
            values.reverse();
        }
        let dst =
            (rng.below(3) == 0).then(|| Destination { dtype: random_dtype(&mut rng), shape: random_shape(&mut rng) });
        let options = OpOptions {
            limits: RunLimits { max_insns: 2_000_000, wall: Duration::from_secs(5), ..RunLimits::default() },
            dst,
            ..OpOptions::default()
        };
        let function = if rng.below(8) == 0 { "nope" } else { "relu_forward" };
        // Without a schema table, arguments pass as given (an older image).
        let target = if rng.below(4) == 0 { &untyped } else { &library };
        match target.run(function, &values, &options) {
            Ok(report) => {
                ran += 1;
                assert!(report.stats.len() == 1, "case {case}");
            }
            Err(e) => {
                let message = e.to_string();
                assert!(!message.is_empty() && !message.contains('\n'), "case {case}: {message}");
            }
        }
    }
    assert!(ran > 50, "only {ran} cases ran: the generator should mostly make runnable calls");
}

#[test]
fn mutated_npy_files_never_panic() {
    let mut rng = Rng(0x00c0_ffee);
    let good = npy::write(&Array::from_f32(vec![3, 2], &[1.0, -2.0, 3.0, 4.0, 5.0, 6.0]));
    for _ in 0..20_000 {
        let mut bytes = good.clone();
        for _ in 0..=rng.below(4) {
            match rng.below(3) {
                0 if !bytes.is_empty() => {
                    let at = rng.below(bytes.len() as u64) as usize;
                    bytes[at] = rng.next() as u8;
                }
                1 => bytes.truncate(rng.below(bytes.len() as u64 + 1) as usize),
                _ => {
                    let at = rng.below(bytes.len() as u64 + 1) as usize;
                    bytes.insert(at, b"0123456789,()'<>|x "[rng.below(19) as usize]);
                }
            }
        }
        if let Ok(array) = npy::read(&bytes) {
            let bytes = array.shape.iter().try_fold(array.dtype.size(), |n, &d| n.checked_mul(d));
            assert_eq!(bytes, Some(array.data.len()), "a parsed array's data matches its shape");
        }
    }
}
