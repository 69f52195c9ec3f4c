//! Runs everywhere: on a machine without CUDA every GPU entry point is an error that says
//! what is missing, never a panic; on a machine with CUDA the same calls succeed.

use hpquad::gpu::{self, Gpu};

#[test]
fn gpu_entry_points_never_panic() {
    let available = gpu::is_available();
    match gpu::devices() {
        Ok(list) => assert_eq!(available, !list.is_empty()),
        Err(e) => {
            assert!(!available);
            println!("devices: {e}");
        }
    }
    if let Err(e) = gpu::nvrtc_version() {
        println!("nvrtc: {e}");
    }
    match Gpu::new(0) {
        Ok(g) => assert!(available && g.info().multiprocessors > 0),
        Err(e) => {
            println!("Gpu::new(0): {e}");
            assert!(!e.to_string().is_empty());
        }
    }
}

#[test]
fn the_kernel_source_is_complete() {
    // The assembled source needs no include path: every header is inlined.
    let src = Gpu::uniform_sum_source::<f64>("return x;").unwrap();
    assert!(!src.contains("#include"));
    assert!(src.contains("typedef double real_t;"));
    assert!(src.contains("return x;"));
    assert!(!src.contains("@@INTEGRAND@@"));
}
