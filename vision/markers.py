"""``mjtable vision markers``: a printable sheet of the table's four ArUco markers at true size.

    mjtable vision markers --out markers.pdf            # A4, 300 dpi, 50 mm markers (the default geometry)
    mjtable vision markers --out markers.png --paper letter --dpi 600

The sheet holds markers 0-3 (DICT_4X4_50, the ids and size of :class:`vision.pipeline.zones.TableGeometry`),
each with a white quiet zone, its id, the corner of the table it belongs to, and an arrow for the edge that
points away from seat 0; plus a 100 mm scale bar to check the printer did not scale the page ("actual size",
not "fit to page").  PDF and PNG carry the resolution, so the page prints at true size.  Pure image work on
the caller's thread; writes only ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.pipeline.zones import TableGeometry

PAPERS_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: where each marker goes (ids in TableGeometry.marker_ids order)
PLACES = ("seat 0's left corner", "seat 0's right corner", "seat 2's left corner", "seat 2's right corner")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype(FONT, px)
    except OSError:
        return ImageFont.load_default()


def marker_sheet(geometry: TableGeometry, *, dpi: int = 300, paper: str = "a4") -> Image.Image:
    """The sheet as a 1-bit-looking RGB image of ``paper`` size at ``dpi`` (marker side = geometry size)."""
    w_mm, h_mm = PAPERS_MM[paper]
    px = dpi / 25.4  # pixels per mm
    sheet = Image.new("RGB", (round(w_mm * px), round(h_mm * px)), "white")
    draw = ImageDraw.Draw(sheet)
    side = round(geometry.marker_size_mm * px)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    small, big = _font(round(3.2 * px)), _font(round(5 * px))
    draw.text((round(15 * px), round(10 * px)), "mjtable table markers (ArUco DICT_4X4_50) - print at ACTUAL SIZE",
              fill="black", font=big)
    cell_w, cell_h = (w_mm - 30) / 2, 105.0
    for k, mid in enumerate(geometry.marker_ids):
        col, row = k % 2, k // 2
        x0 = (15 + col * cell_w + (cell_w - geometry.marker_size_mm) / 2) * px
        y0 = (40 + row * cell_h) * px
        img = cv2.aruco.generateImageMarker(dictionary, mid, side)
        sheet.paste(Image.fromarray(np.asarray(img)).convert("RGB"), (round(x0), round(y0)))
        quiet = 6 * px  # the white margin the detector needs: leave it uncovered when sticking
        draw.rectangle([x0 - quiet, y0 - quiet, x0 + side + quiet, y0 + side + quiet], outline=(170, 170, 170),
                       width=max(1, round(0.2 * px)))
        cx = x0 + side / 2
        draw.text((cx, y0 - quiet - 1 * px), "^ this edge away from seat 0", fill="black", font=small, anchor="md")
        draw.text((cx, y0 + side + quiet + 2 * px), f"marker {mid}: {PLACES[k]}", fill="black", font=big,
                  anchor="ma")
        draw.text((cx, y0 + side + quiet + 9 * px), f"{geometry.marker_size_mm:.0f} mm square; its centre "
                  f"{geometry.marker_offset_mm:.0f} mm", fill="black", font=small, anchor="ma")
        draw.text((cx, y0 + side + quiet + 13.5 * px), "from the table centre along both edges", fill="black",
                  font=small, anchor="ma")
    bar_y = (40 + 2 * cell_h + 5) * px
    x_left = 15 * px
    draw.rectangle([x_left, bar_y, x_left + 100 * px, bar_y + 3 * px], fill="black")
    for mm in range(0, 101, 10):
        draw.line([x_left + mm * px, bar_y - 2 * px, x_left + mm * px, bar_y], fill="black",
                  width=max(1, round(0.3 * px)))
    draw.text((x_left, bar_y + 5 * px), "100 mm: measure this bar; if it is not 100 mm, print again at actual size",
              fill="black", font=small)
    return sheet


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="file to write: .pdf or .png")
    parser.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    parser.add_argument("--paper", choices=sorted(PAPERS_MM), default="a4", help="paper size (default a4)")


def markers_main(args: argparse.Namespace) -> int:
    """Write the sheet; prints ``{"out", "paper", "dpi", "marker_mm", "ids"}``; 2 for bad arguments."""
    suffix = args.out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        print(json.dumps({"error": f"--out must end in .pdf or .png, not {args.out.name!r}"}))
        return 2
    if not 72 <= args.dpi <= 1200:
        print(json.dumps({"error": f"--dpi must be 72..1200, not {args.dpi}"}))
        return 2
    geometry = TableGeometry()
    sheet = marker_sheet(geometry, dpi=args.dpi, paper=args.paper)
    if suffix == ".pdf":
        sheet.save(args.out, "PDF", resolution=float(args.dpi))
    else:
        sheet.save(args.out, "PNG", dpi=(args.dpi, args.dpi))
    sys.stdout.write(json.dumps({"out": str(args.out), "paper": args.paper, "dpi": args.dpi,
                                 "marker_mm": geometry.marker_size_mm, "ids": list(geometry.marker_ids)}) + "\n")
    return 0
