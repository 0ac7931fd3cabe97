//! The generated wrapper.cpp text, snapshot-tested (Q7_BLESS=1 regenerates).

use std::path::Path;

use q7_build::schema::parse;
use q7_build::wrapper::{generate, ops};

fn golden(name: &str, text: &str) {
    q7_testkit::assert_golden(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name), text);
}

#[test]
fn single_tensor_op() {
    let ops = ops(&["relu_forward".into()], vec![parse("relu_forward(Tensor _0) -> Tensor").unwrap()]).unwrap();
    golden("wrapper_relu.cpp", &generate("librelu", &ops));
}

#[test]
fn mixed_arguments_and_namespaces() {
    let fns = vec!["scale".to_string(), "my_ops::shift".to_string()];
    let schemas = vec![
        parse("scale(Tensor x, float s, int n) -> Tensor").unwrap(),
        parse("my_ops::shift(Tensor x, Scalar by, long long times) -> Tensor").unwrap(),
    ];
    let text = generate("libmath", &ops(&fns, schemas).unwrap());
    assert!(text.contains(
        "namespace my_ops { torch::Tensor shift(const torch::Tensor& x, torch::Scalar by, int64_t times); }"
    ));
    assert!(text.contains("extern \"C\" void my_ops_shift_stack_switch()"));
    assert!(text.contains("  double arg1 = customop_next_double();  // s\n"));
    golden("wrapper_mixed.cpp", &text);
}
