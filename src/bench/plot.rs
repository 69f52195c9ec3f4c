//! The picture: correct digits against time (log scale), one panel per integral, one curve
//! per method, precision and device.
//!
//! Colour says precision and device, the marker says the method (circle Romberg, triangle
//! Richardson, cross trapezoid); a hollow marker is a point that did not meet its tolerance.
//! Text is drawn with DejaVu Sans embedded in the binary (`data/fonts`, with its licence), so
//! the PNG renders the same on a machine without any fonts.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use super::suite::Reference;
use super::{Point, Status, PRECISIONS};
use crate::options::{Device, Precision};

const FONT: &[u8] = include_bytes!("../../data/fonts/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Width of the picture and height of one row of panels, in pixels.
const WIDTH: u32 = 1400;
const ROW_HEIGHT: u32 = 380;
const TITLE_HEIGHT: u32 = 50;
const LEGEND_HEIGHT: u32 = 70;

/// Registers the embedded font once; plotters looks fonts up by family name.
fn font() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            register_font(FAMILY, FontStyle::Normal, FONT)
                .map_err(|_| "the embedded font does not load".to_string())
        })
        .clone()
}

/// The colour of a precision on a device.
fn colour(precision: Precision, device: Device) -> RGBColor {
    let on_cpu = device == Device::Cpu;
    match (precision, on_cpu) {
        (Precision::F64, true) => RGBColor(31, 119, 180),
        (Precision::Dd, true) => RGBColor(44, 160, 44),
        (Precision::Qd, true) => RGBColor(214, 39, 40),
        (Precision::F64, false) => RGBColor(148, 103, 189),
        (Precision::Dd, false) => RGBColor(255, 127, 14),
        (Precision::Qd, false) => RGBColor(140, 86, 75),
    }
}

/// Writes the picture as SVG and PNG.
pub fn write(
    points: &[Point],
    references: &[Reference],
    title: &str,
    svg: &Path,
    png: &Path,
) -> Result<(), String> {
    font()?;
    let integrals: Vec<&Reference> = references
        .iter()
        .filter(|r| points.iter().any(|p| p.integral == r.name))
        .collect();
    let rows = integrals.len().div_ceil(2).max(1) as u32;
    let size = (WIDTH, TITLE_HEIGHT + rows * ROW_HEIGHT + LEGEND_HEIGHT);
    {
        let root = SVGBackend::new(svg, size).into_drawing_area();
        draw(&root, points, &integrals, title).map_err(|e| format!("{}: {e}", svg.display()))?;
        root.present()
            .map_err(|e| format!("{}: {e}", svg.display()))?;
    }
    let root = BitMapBackend::new(png, size).into_drawing_area();
    draw(&root, points, &integrals, title).map_err(|e| format!("{}: {e}", png.display()))?;
    root.present()
        .map_err(|e| format!("{}: {e}", png.display()))?;
    Ok(())
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    points: &[Point],
    integrals: &[&Reference],
    title: &str,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let (top, rest) = root.split_vertically(TITLE_HEIGHT);
    top.draw(&Text::new(
        title.to_string(),
        (20, 14),
        (FAMILY, 22).into_font().color(&BLACK),
    ))?;
    let (grid, legend) = rest.split_vertically(rest.dim_in_pixel().1 - LEGEND_HEIGHT);

    // One time axis for all panels, so that panels compare.
    let measured = points.iter().filter_map(|p| p.measurement.as_ref());
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for m in measured {
        if m.seconds > 0.0 {
            lo = lo.min(m.seconds);
            hi = hi.max(m.seconds);
        }
    }
    if !(lo.is_finite() && hi > 0.0) {
        (lo, hi) = (1e-6, 1.0);
    }
    let (lo, hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil()),
    );

    let rows = integrals.len().div_ceil(2).max(1);
    let panels = grid.split_evenly((rows, 2));
    for (panel, reference) in panels.iter().zip(integrals) {
        let mut chart = ChartBuilder::on(panel)
            .caption(&reference.title, (FAMILY, 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d((lo..hi).log_scale(), 0f64..65f64)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("correct digits")
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .y_label_formatter(&|d| format!("{d:.0}"))
            .label_style((FAMILY, 13))
            .axis_desc_style((FAMILY, 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let mine: Vec<&Point> = points
            .iter()
            .filter(|p| p.integral == reference.name)
            .collect();
        let mut curves: Vec<(&str, Precision, Device)> = Vec::new();
        for p in &mine {
            if !curves.contains(&(p.method, p.precision, p.device)) {
                curves.push((p.method, p.precision, p.device));
            }
        }
        for (method, precision, device) in curves {
            let colour = colour(precision, device);
            let curve: Vec<(f64, f64, bool)> = mine
                .iter()
                .filter(|p| p.method == method && p.precision == precision && p.device == device)
                .filter_map(|p| {
                    p.measurement
                        .as_ref()
                        .map(|m| (m.seconds, m.digits, p.status == Status::Converged))
                })
                .collect();
            let width = if matches!(method, "romberg" | "auto") {
                2
            } else {
                1
            };
            chart.draw_series(LineSeries::new(
                curve.iter().map(|&(t, d, _)| (t, d)),
                colour.stroke_width(width),
            ))?;
            for &(t, d, converged) in &curve {
                let style = if converged {
                    colour.filled()
                } else {
                    colour.stroke_width(1)
                };
                marker(chart.plotting_area(), method, (t, d), style)?;
            }
        }
    }

    // The legend: colours for precision and device, markers for methods.
    let text = (FAMILY, 15).into_font().color(&BLACK);
    let mut x = 20;
    let mut pairs: Vec<(Precision, Device)> = Vec::new();
    for p in points {
        if !pairs.contains(&(p.precision, p.device)) {
            pairs.push((p.precision, p.device));
        }
    }
    pairs.sort_by_key(|&(p, d)| (d.to_string(), PRECISIONS.iter().position(|&q| q == p)));
    for (precision, device) in pairs {
        let colour = colour(precision, device);
        legend.draw(&PathElement::new(
            vec![(x, 22), (x + 30, 22)],
            colour.stroke_width(3),
        ))?;
        legend.draw(&Text::new(
            format!("{precision}, {device}"),
            (x + 36, 14),
            text.clone(),
        ))?;
        x += 130;
    }
    let mut x = 20;
    for method in super::METHODS {
        marker(&legend, method.name, (x + 6, 50), BLACK.filled())?;
        legend.draw(&Text::new(
            method.name.to_string(),
            (x + 18, 42),
            text.clone(),
        ))?;
        x += 130;
    }
    legend.draw(&Text::new(
        "hollow: tolerance not met".to_string(),
        (x, 42),
        text.clone(),
    ))?;
    Ok(())
}

/// Draws the marker of a method: circle (Romberg and methods without their own), triangle
/// (Richardson), cross (trapezoid).
fn marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    method: &str,
    at: CT::From,
    style: ShapeStyle,
) -> DrawResult<DB>
where
    CT::From: Clone + 'static,
{
    match method {
        "richardson" => area.draw(&TriangleMarker::new(at, 5, style)),
        "trapezoid" => area.draw(&Cross::new(at, 4, style)),
        _ => area.draw(&Circle::new(at, 4, style)),
    }
}

/// One curve of a [`Chart`]: its legend label and its points (x, y, filled: a hollow marker is
/// a point that did not meet its tolerance).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's text.
    pub label: String,
    /// The points, in the order they are joined.
    pub points: Vec<(f64, f64, bool)>,
}

/// One panel of a [`Chart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The panel's caption.
    pub caption: String,
    /// Its curves; a label seen in several panels keeps its colour.
    pub series: Vec<Series>,
}

/// A picture of panels side by side (two a row) with log-scaled axes on both sides, shared by
/// all panels: the speedup plots and the throughput plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The title over the panels.
    pub title: String,
    /// The x axis's description.
    pub x_desc: String,
    /// The y axis's description.
    pub y_desc: String,
    /// The panels.
    pub panels: Vec<Panel>,
}

/// The colours of a chart's labels, in the order labels are first seen: twelve, as many as the
/// batch chart's 1-D panel has curves.
const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(120, 60, 0),
];

/// Writes a [`Chart`] as SVG and PNG.
pub fn write_chart(chart: &Chart, svg: &Path, png: &Path) -> Result<(), String> {
    font()?;
    let rows = chart.panels.len().div_ceil(2).max(1) as u32;
    let size = (WIDTH, TITLE_HEIGHT + rows * (ROW_HEIGHT + 60));
    {
        let root = SVGBackend::new(svg, size).into_drawing_area();
        draw_chart(&root, chart).map_err(|e| format!("{}: {e}", svg.display()))?;
        root.present()
            .map_err(|e| format!("{}: {e}", svg.display()))?;
    }
    let root = BitMapBackend::new(png, size).into_drawing_area();
    draw_chart(&root, chart).map_err(|e| format!("{}: {e}", png.display()))?;
    root.present()
        .map_err(|e| format!("{}: {e}", png.display()))?;
    Ok(())
}

/// The range of positive values, widened to whole decades.
fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !(lo.is_finite() && hi > 0.0) {
        return (0.1, 10.0);
    }
    let (lo, mut hi) = (
        10f64.powf(lo.log10().floor()),
        10f64.powf(hi.log10().ceil()),
    );
    if hi <= lo {
        hi = lo * 10.0;
    }
    (lo, hi)
}

fn draw_chart<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let (top, grid) = root.split_vertically(TITLE_HEIGHT);
    top.draw(&Text::new(
        chart.title.clone(),
        (20, 14),
        (FAMILY, 22).into_font().color(&BLACK),
    ))?;
    let all = || {
        chart
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .flat_map(|s| &s.points)
    };
    let (x_lo, x_hi) = decades(all().map(|p| p.0));
    let (y_lo, y_hi) = decades(all().map(|p| p.1));
    let mut labels: Vec<&str> = Vec::new();
    for s in chart.panels.iter().flat_map(|p| &p.series) {
        if !labels.contains(&s.label.as_str()) {
            labels.push(&s.label);
        }
    }
    let colour_of = |label: &str| {
        let i = labels.iter().position(|l| *l == label).unwrap_or(0);
        PALETTE[i % PALETTE.len()]
    };
    let rows = chart.panels.len().div_ceil(2).max(1);
    let areas = grid.split_evenly((rows, 2));
    for (area, panel) in areas.iter().zip(&chart.panels) {
        let mut c = ChartBuilder::on(area)
            .caption(&panel.caption, (FAMILY, 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())?;
        c.configure_mesh()
            .x_desc(chart.x_desc.as_str())
            .y_desc(chart.y_desc.as_str())
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .label_style((FAMILY, 13))
            .axis_desc_style((FAMILY, 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for s in &panel.series {
            let colour = colour_of(&s.label);
            c.draw_series(LineSeries::new(
                s.points.iter().map(|&(x, y, _)| (x, y)),
                colour.stroke_width(2),
            ))?
            .label(s.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3))
            });
            for &(x, y, filled) in &s.points {
                let style = if filled {
                    colour.filled()
                } else {
                    colour.stroke_width(1)
                };
                c.plotting_area().draw(&Circle::new((x, y), 4, style))?;
            }
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .label_font((FAMILY, 12))
            .draw()?;
    }
    Ok(())
}
