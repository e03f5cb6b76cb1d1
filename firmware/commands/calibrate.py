"""`tableref calibrate lens|table|check`: the three setup steps a club does once.

lens   stills of the ChArUco board (IMAGE files, or from the camera with progress on
       the display) -> intrinsics and distortion stored in the profile.
table  one frame of the table -> marker checks (missing, blurred, print scale), the
       fit's residual, a fixed fallback frame stored in the profile, an outline picture.
       --corners/--area instead makes a profile from four hand-given corners.
check  prints the lens and table errors (and the taught colours' margins with
       --palette) and writes the rectified table with a millimetre grid.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import fit_from_corners, locate_table
from calibration.lens import (COVERAGE_GRID, LensCalibrationError, View, calibrate_lens,
                              coverage, detect_view)
from calibration.palette import colour_margins, load_palette
from calibration.pictures import grid_picture, outline_picture
from calibration.profile import TableProfile, save_profile
from calibration.table import check_table
from firmware.cli import UserError
from firmware.commands.analyze import parse_numbers, read_image
from firmware.commands.markers import resolve_profile

GOOD_COVERAGE = 0.6


def _out_path(args: argparse.Namespace, profile: TableProfile) -> Path:
    if args.out:
        p = Path(args.out)
        if p.suffix != ".toml":
            raise UserError(f"--out '{args.out}': the profile is TOML; give a name ending in .toml")
        return p
    if args.profile and Path(args.profile).suffix == ".toml":
        return Path(args.profile)
    raise UserError("no profile file to write; give --out FILE.toml (or --profile FILE.toml to update it)")


def _write_picture(path: Path, image: NDArray[np.uint8]) -> None:
    if not path.parent.exists():
        raise UserError(f"{path.parent}: no such folder; create it or choose another --out")
    ok, buf = cv2.imencode(path.suffix if path.suffix in (".png", ".jpg", ".jpeg") else ".png", image)
    if not ok:
        raise UserError(f"{path}: cannot encode the picture; use a .png name")
    buf.tofile(str(path))


def _camera_frames(args: argparse.Namespace) -> Any:
    from firmware.camera.factory import open_camera

    cam = open_camera(args.camera)
    cam.start()
    return cam


def _display(args: argparse.Namespace) -> Any:
    try:
        from firmware.display.factory import open_display

        return open_display(args.display)
    except Exception:  # noqa: BLE001 - progress on the display is a nicety
        return None


def _show(display: Any, title: str, lines: list[str]) -> None:
    if display is None:
        return
    try:
        from firmware.screens.base import text_screen

        display.show(text_screen(title, lines))
    except Exception:  # noqa: BLE001
        pass


def _one_frame(args: argparse.Namespace) -> tuple[NDArray[np.uint8], str]:
    if args.images:
        if len(args.images) > 1:
            raise UserError(f"calibrate {args.what} reads one image; give just one (got {len(args.images)})")
        return read_image(args.images[0]), args.images[0]
    cam = _camera_frames(args)
    try:
        return cam.capture_still().image, f"camera {args.camera or 'default'}"
    finally:
        cam.close()


# ---- lens ------------------------------------------------------------------------

def _distinct(view: View, views: list[View], size: tuple[int, int]) -> bool:
    """A new view must move the board by 5% of the frame, or it adds nothing."""
    for v in views:
        common, ia, ib = np.intersect1d(view.ids, v.ids, return_indices=True)
        if len(common) >= 4:
            shift = np.median(np.linalg.norm(view.corners[ia] - v.corners[ib], axis=1))
            if shift < 0.05 * max(size):
                return False
    return True


def _lens_views_from_camera(args: argparse.Namespace) -> tuple[list[View], tuple[int, int]]:
    from firmware.camera.base import EndOfStream

    cam = _camera_frames(args)
    display = _display(args)
    views: list[View] = []
    size = (0, 0)
    tries = 0
    try:
        while len(views) < args.views and tries < args.views * 40:
            tries += 1
            try:
                frame = cam.capture_still().image
            except EndOfStream:
                break
            size = (frame.shape[1], frame.shape[0])
            v = detect_view(frame)
            if v is not None and _distinct(v, views, size):
                views.append(v)
            cov = coverage(views, size) if views else 0.0
            _show(display, "Lens", [f"{len(views)}/{args.views} views", f"{cov:.0%} covered"])
            print(f"lens: {len(views)}/{args.views} views, {cov:.0%} of the image covered", flush=True)
    finally:
        cam.close()
    return views, size


def _lens(args: argparse.Namespace) -> int:
    profile = resolve_profile(args.profile, args.game)
    out = _out_path(args, profile)
    try:
        if args.images:
            frames = [read_image(p) for p in args.images]
            sizes = {(f.shape[1], f.shape[0]) for f in frames}
            if len(sizes) != 1:
                raise UserError("the stills have different sizes; take them all at one resolution")
            size = sizes.pop()
            views = []
            for path, f in zip(args.images, frames):
                v = detect_view(f)
                print(f"{path}: {'board not found' if v is None else f'{len(v.ids)} corners'}")
                if v is not None:
                    views.append(v)
        else:
            views, size = _lens_views_from_camera(args)
        res = calibrate_lens(views, size, model=getattr(args, "model", None) or "auto")
    except LensCalibrationError as e:
        raise UserError(str(e)) from None
    save_profile(profile.with_lens(res.lens), out)
    k = res.lens.camera_matrix
    hfov = 2 * math.degrees(math.atan(size[0] / 2 / k[0][0]))
    print(f"lens: {len(res.per_view_px)} views, reprojection error {res.rms_px:.3f} px "
          f"(worst view {max(res.per_view_px):.3f} px), {res.model} model, "
          f"{res.coverage:.0%} of the image covered, about {hfov:.0f} degrees across")
    if res.coverage < GOOD_COVERAGE:
        print(f"warning: the views cover only {res.coverage:.0%} of the image "
              f"({COVERAGE_GRID[0]}x{COVERAGE_GRID[1]} cells); add views with the board near the edges and corners")
    if res.rms_px > 1.0:
        print("warning: reprojection error above 1 px; check the board is flat and the stills sharp")
    print(f"saved {out}")
    return 0


# ---- table -----------------------------------------------------------------------

def _table(args: argparse.Namespace) -> int:
    profile = resolve_profile(args.profile, args.game)
    out = _out_path(args, profile)
    image, source = _one_frame(args)
    if args.corners or args.area:
        if not (args.corners and args.area):
            raise UserError("--corners and --area go together: give the rectangle's image corners and its size in mm")
        c = parse_numbers(args.corners, 8, "--corners", "100,80,1900,90,1880,1400,120,1390")
        a = parse_numbers(args.area, 2, "--area", "400,400")
        if a[0] <= 0 or a[1] <= 0:
            raise UserError(f"--area '{args.area}': width and height must be positive millimetres")
        fit = fit_from_corners([c[i:i + 2] for i in range(0, 8, 2)], (a[0], a[1]), profile.lens)
        fixed = replace(profile, markers=(), area_origin_mm=(0.0, 0.0), area_size_mm=(a[0], a[1]))
        fixed = fixed.with_homography(fit.image_to_table)
        save_profile(fixed, out)
        pic = out.with_suffix(".png")
        _write_picture(pic, outline_picture(image, fit, fixed))
        print(f"table: fixed frame from the given corners ({a[0]:g} x {a[1]:g} mm); the camera must not move")
        print(f"saved {out} and {pic}")
        return 0
    report = check_table(image, profile)
    fit = report.fit
    seen = ", ".join(str(i) for i in fit.markers_seen) or "none"
    print(f"table: {source}: markers seen {seen}; fit error {fit.rms_mm:.2f} mm ({fit.source})")
    for m in report.markers:
        scale = f"{m.scale * 100:.1f}%" if m.scale is not None else "not checked (needs 4 markers)"
        print(f"  marker {m.marker_id}: {m.side_px:.0f} px, edge {m.edge_rise_px:.1f} px, print scale {scale}")
    for w in report.warnings:
        print(f"warning: {w}")
    save_profile(profile.with_homography(fit.image_to_table), out)
    pic = out.with_suffix(".png")
    _write_picture(pic, outline_picture(image, fit, profile))
    print(f"saved {out} (with this frame as the fallback when markers are covered) and {pic}")
    return 0


# ---- check -----------------------------------------------------------------------

def _check(args: argparse.Namespace) -> int:
    profile = resolve_profile(args.profile, args.game)
    image, source = _one_frame(args)
    if profile.lens is None:
        print("lens: not calibrated (run 'tableref calibrate lens'); straight lines near the edges may bend")
    else:
        rms = profile.lens.rms_px
        print(f"lens: reprojection error {rms:.3f} px" if not math.isnan(rms) else "lens: stored without an error figure")
        if tuple(profile.lens.image_size) != (image.shape[1], image.shape[0]):
            print(f"warning: lens calibrated at {profile.lens.image_size[0]}x{profile.lens.image_size[1]}, "
                  f"this frame is {image.shape[1]}x{image.shape[0]}; calibrate at the resolution you play at")
    if args.corners or args.area:
        from firmware.commands.analyze import resolve_fit

        fit = resolve_fit(image, profile, args.corners, args.area)
        print("table: fixed frame from --corners (no error figure)")
    elif profile.markers:
        report = check_table(image, profile)
        fit = report.fit
        print(f"table: fit error {fit.rms_mm:.2f} mm over markers {', '.join(map(str, fit.markers_seen)) or 'none'} "
              f"({fit.source}) in {source}")
        for w in report.warnings:
            print(f"warning: {w}")
    else:
        fit = locate_table(image, profile)
        print("table: fixed homography from the profile (no error figure)")
    if getattr(args, "palette", None):
        pal = load_palette(args.palette)
        margins = colour_margins(pal)
        if not margins:
            print(f"colours: {args.palette} has no colour prototypes to compare")
        for a, b, d in margins[:5]:
            flag = "  <- close: may be confused under another lamp" if d < 10 else ""
            print(f"colours: {a} vs {b}: {d:.1f} (CIE76){flag}")
    pic = Path(args.out) if args.out else Path("calibration-check.png")
    ppm = max(0.5, min(4.0, 1600.0 / max(profile.area_size_mm)))
    _write_picture(pic, grid_picture(image, fit, profile, px_per_mm=ppm))
    print(f"wrote {pic} (rectified play area, grid every 10 mm)")
    return 0


def main(args: argparse.Namespace) -> int:
    if args.what == "lens":
        return _lens(args)
    if args.what == "table":
        return _table(args)
    return _check(args)
