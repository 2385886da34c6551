//! PNG, JPEG and WebP images: their size, and copies at the widths a
//! `srcset` offers.

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageEncoder, ImageFormat};

/// The narrower widths a picture is offered at (each only when narrower
/// than the picture): a phone, a phone at 2×, a column on a laptop.
pub const WIDTHS: [u32; 3] = [480, 960, 1440];

/// JPEG quality of the narrower copies.
const JPEG_QUALITY: u8 = 82;

/// The formats read, by file extension.
pub fn format(ext: &str) -> Option<ImageFormat> {
    match ext {
        "png" => Some(ImageFormat::Png),
        "jpg" | "jpeg" => Some(ImageFormat::Jpeg),
        "webp" => Some(ImageFormat::WebP),
        _ => None,
    }
}

/// One copy of a picture.
#[derive(Debug, Clone)]
pub struct Copy {
    pub width: u32,
    pub bytes: Vec<u8>,
}

/// A picture's size and its copies, narrowest first, the last the file as
/// it was; `webp` holds lossless WebP copies at the same widths when every
/// one is smaller than its counterpart, else nothing.
#[derive(Debug, Clone)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub copies: Vec<Copy>,
    pub webp: Vec<Copy>,
}

/// Decodes `bytes` and makes the copies.
pub fn picture(bytes: &[u8], format: ImageFormat) -> Result<Picture, String> {
    let img = image::load_from_memory_with_format(bytes, format)
        .map_err(|e| format!("cannot read as {format:?}: {e}"))?;
    let (width, height) = (img.width(), img.height());
    let narrower: Vec<DynamicImage> = WIDTHS
        .into_iter()
        .filter(|w| *w < width)
        .map(|w| {
            let h = ((u64::from(height) * u64::from(w) + u64::from(width) / 2) / u64::from(width))
                .max(1) as u32;
            img.resize_exact(w, h, FilterType::Lanczos3)
        })
        .collect();
    let mut copies = narrower
        .iter()
        .map(|small| {
            Ok(Copy {
                width: small.width(),
                bytes: encode(small, format)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    copies.push(Copy {
        width,
        bytes: bytes.to_vec(),
    });
    // WebP copies are lossless (the encoder has no lossy mode): worth
    // trying for a PNG, always larger than a photograph's JPEG.
    let mut webp = Vec::new();
    if format == ImageFormat::Png {
        for (small, c) in narrower.iter().chain([&img]).zip(&copies) {
            let bytes = encode(small, ImageFormat::WebP)?;
            if bytes.len() >= c.bytes.len() {
                webp.clear();
                break;
            }
            webp.push(Copy {
                width: c.width,
                bytes,
            });
        }
    }
    Ok(Picture {
        width,
        height,
        copies,
        webp,
    })
}

/// `img` in `format`, 8 bits a channel (what every encoder here takes).
fn encode(img: &DynamicImage, format: ImageFormat) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let alpha = img.color().has_alpha();
    let img = if alpha && format != ImageFormat::Jpeg {
        DynamicImage::ImageRgba8(img.to_rgba8())
    } else {
        DynamicImage::ImageRgb8(img.to_rgb8())
    };
    let (w, h, color) = (img.width(), img.height(), img.color().into());
    let result = match format {
        ImageFormat::Png => PngEncoder::new(&mut out).write_image(img.as_bytes(), w, h, color),
        ImageFormat::Jpeg => JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY).write_image(
            img.as_bytes(),
            w,
            h,
            color,
        ),
        _ => WebPEncoder::new_lossless(&mut out).write_image(img.as_bytes(), w, h, color),
    };
    result.map_err(|e| format!("cannot write as {format:?}: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat-coloured PNG of the given size (lossless WebP wins on it).
    pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
        let img = DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x / 50 * 40) as u8, (y / 50 * 40) as u8, 200])
        }));
        encode(&img, ImageFormat::Png).unwrap()
    }

    #[test]
    fn copies_at_narrower_widths_and_the_original() {
        let bytes = png(1000, 500);
        let p = picture(&bytes, ImageFormat::Png).unwrap();
        assert_eq!((p.width, p.height), (1000, 500));
        let widths: Vec<u32> = p.copies.iter().map(|c| c.width).collect();
        assert_eq!(widths, [480, 960, 1000]);
        assert_eq!(p.copies.last().unwrap().bytes, bytes);
        let small = image::load_from_memory(&p.copies[0].bytes).unwrap();
        assert_eq!((small.width(), small.height()), (480, 240));
        assert_eq!(p.webp.len(), 3);
        for (w, c) in p.webp.iter().zip(&p.copies) {
            assert!(w.bytes.len() < c.bytes.len());
            assert_eq!(w.width, c.width);
        }
    }

    #[test]
    fn a_small_picture_has_one_copy_and_jpeg_no_webp() {
        let p = picture(&png(300, 200), ImageFormat::Png).unwrap();
        assert_eq!(p.copies.len(), 1);
        let img = image::load_from_memory(&png(600, 400)).unwrap();
        let jpeg = encode(&img, ImageFormat::Jpeg).unwrap();
        let p = picture(&jpeg, ImageFormat::Jpeg).unwrap();
        assert_eq!(p.copies.len(), 2);
        assert!(p.webp.is_empty());
        assert!(picture(b"not a png", ImageFormat::Png).is_err());
    }
}
