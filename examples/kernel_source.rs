//! Prints the CUDA source of the uniform-sum kernel for an expression, as NVRTC sees it, to
//! read the device code's resource use and machine code without a GPU (ptxas, nvdisasm).
//! `cargo run --release --example kernel_source -- 'exp(x)' dd > exp_dd.cu`
use hpquad::expr::{cuda, Expr};
use hpquad::gpu::Gpu;
use hpquad::precision::{Dd, Qd};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(source), Some(precision)) = (args.get(1), args.get(2)) else {
        return Err("usage: kernel_source EXPRESSION f64|dd|qd".into());
    };
    let expr = Expr::parse(source, 1)?;
    let text = match precision.as_str() {
        "f64" => Gpu::integrand_source::<f64>(&cuda::integrand::<f64>(expr.tape())?)?,
        "dd" => Gpu::integrand_source::<Dd>(&cuda::integrand::<Dd>(expr.tape())?)?,
        "qd" => Gpu::integrand_source::<Qd>(&cuda::integrand::<Qd>(expr.tape())?)?,
        other => return Err(format!("unknown precision {other}").into()),
    };
    print!("{text}");
    Ok(())
}
