//! Prints the CUDA source of a kernel for an expression, as NVRTC sees it, to read the device
//! code's resource use and machine code without a GPU (ptxas, nvdisasm): the uniform-sum
//! kernel of a 1-D integrand, or with `list DIMS 7|9` the device region list's kernels
//! (cubature, DIMS variables, the rule of that degree).
//! `cargo run --release --example kernel_source -- 'exp(x)' dd > exp_dd.cu`
//! `cargo run --release --example kernel_source -- '(1 + x1 + 2*x2)^(-3)' f64 list 2 9`
use hpquad::backend::PointSet;
use hpquad::expr::{cuda, Expr};
use hpquad::gpu::{Gpu, GpuReal};
use hpquad::precision::{Dd, Qd, Real};

/// The source for `T`: the uniform sum, or the list kernels of `list` = (dims, rule).
fn source<T: GpuReal + Real>(
    expr: &str,
    list: Option<(usize, PointSet)>,
) -> Result<String, String> {
    let dims = list.map_or(1, |(dims, _)| dims);
    let expr = Expr::parse(expr, dims).map_err(|e| e.to_string())?;
    let code = cuda::integrand::<T>(expr.tape()).map_err(|e| e.to_string())?;
    match list {
        None => Gpu::integrand_source::<T>(&code),
        Some((_, set)) => Gpu::cuhre_list_source::<T>(&code, set),
    }
    .map_err(|e| e.to_string())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: kernel_source EXPRESSION f64|dd|qd [list DIMS 7|9]";
    let (Some(expr), Some(precision)) = (args.get(1), args.get(2)) else {
        return Err(usage.into());
    };
    let list = match args.get(3).map(String::as_str) {
        None => None,
        Some("list") => {
            let dims = args.get(4).and_then(|d| d.parse().ok()).ok_or(usage)?;
            let set = match args.get(5).map(String::as_str) {
                Some("7") => PointSet::Degree7,
                Some("9") => PointSet::Degree9,
                _ => return Err(usage.into()),
            };
            Some((dims, set))
        }
        Some(_) => return Err(usage.into()),
    };
    let text = match precision.as_str() {
        "f64" => source::<f64>(expr, list)?,
        "dd" => source::<Dd>(expr, list)?,
        "qd" => source::<Qd>(expr, list)?,
        other => return Err(format!("unknown precision {other}").into()),
    };
    print!("{text}");
    Ok(())
}
