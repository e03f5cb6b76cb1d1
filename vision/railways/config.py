"""Every threshold of the railway reader in one place, in table millimetres where it is a
length, so a stage never hides a magic number and a table can be tuned without code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

# Normalised BGR (paper white ~235, ink black ~25) of each piece colour.
CLIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (58, 60, 176), "white": (238, 234, 228), "green": (64, 140, 60),
    "black": (30, 36, 48), "yellow": (82, 216, 234),
    "blue": (176, 100, 52), "silver": (182, 176, 170),
}
PLAYER_COLOURS = ("red", "white", "green", "black", "yellow")
RIVER_COLOURS = ("blue", "silver")
CARD_COLOURS: dict[str, tuple[int, int, int]] = {
    "city": (72, 230, 252), "town": (44, 157, 236), "suburban": (80, 74, 214),
    "countryside": (98, 194, 104), "start": (236, 205, 220),
}
# What else lies among the cards: printing on them (paper white, ink) and the Metropolis
# board's neutral grey (else read as the brownish grey of a mountain); a pixel nearer one
# of these than any card colour is not card.
OTHER_COLOURS: dict[str, tuple[int, int, int]] = {"paper": (240, 240, 240), "ink": (40, 40, 44),
                                                  "board": (92, 92, 98)}
CUBE_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (62, 58, 190), "white": (232, 232, 228), "green": (72, 146, 56),
    "black": (40, 40, 42), "yellow": (60, 206, 236),
}
OBSTACLE_COLOURS: dict[str, tuple[int, int, int]] = {"mountain": (104, 126, 140), "lake": (186, 146, 100)}


@dataclass(frozen=True)
class RailwaysConfig:
    """Reader settings; defaults suit a 1 m table seen from 1.0-1.4 m."""

    px_per_mm: float = 2.0              # top-down working resolution (0.5 mm pixels)
    station_spot_mm: float = 20.0       # cards are looked for again on a view divided by the brightest surface
                                        # this near where it outshines the markers' white (0: not; stations.find_stations)
    spot_patch_mm: float = 12.0         # ... in patches at least this wide (a card's printing, a white clip,
                                        # a glint are narrower; pipeline._spot_view)
    margin_mm: float = 8.0              # read this far outside the play area
    colour_sigma: float = 34.0          # Lab distance scale of colour membership
    thin_kernel_mm: float = 3.5         # wider than a wire, narrower than a clip loop
    wire_threshold: float = 0.2        # thin-structure membership that counts as wire
    band_close_mm: float = 5.0          # closes a clip's loops into one band
    min_chain_area_mm2: float = 200.0   # smaller wire blobs are noise
    max_chain_area_mm2: float = 40000.0  # a blob larger than this and
    max_chain_fill: float = 0.3         # filling this much of its box is a patch, not chains
    spur_mm: float = 14.0               # skeleton spurs shorter than this are pruned
    ink_threshold: float = 8.0          # Lab distance from the table that may be wire (1 mm cells)
    ink_close_mm: float = 3.0           # closes a clip's loops
    ink_open_mm: float = 5.0            # narrower ink is a printed line or an edge, not a chain
    card_grow_mm: float = 1.5           # a card's mask reaches this far past its outline
    colour_sure: float = 0.3            # a path's colour is sure when the next best explains it this much worse
    colour_half_mm: float = 5.0         # half-width of the strip whose pixels name a chain's colour
    colour_top_share: float = 0.3       # the share of a chain's strip that differs most names it
    blind_contrast: float = 25.0        # a colour this near the table shows only as shading
    blind_shading: float = 40.0         # how far that shading may take a pixel from the table
    kink_span_mm: float = 8.0           # a path turning more than kink_deg over twice this is two chains
    kink_deg: float = 55.0
    colour_window_mm: float = 7.0       # the neighbourhood whose wire evidence colours a band cell
    bridge_mm: float = 45.0             # gaps a chain may jump (under other chains, cubes)
    bridge_angle_deg: float = 40.0
    bridge_skip_mm: float = 15.0        # an end's heading is measured behind this much of it
    bridge_span_mm: float = 25.0        # over this length
    bridge_lateral_mm: float = 6.0      # ends this far to the side of each other's heading may join
    bridge_overlap_mm: float = 15.0     # pieces may overshoot each other this much in a crossing
    bridge_turn_cost: float = 60.0      # mm of gap a bend of the heading costs (times 1 - cos)
    station_side_mm: tuple[float, float] = (48.0, 76.0)
    metro_side_mm: tuple[float, float] = (110.0, 170.0)
    card_side_mm: float = 60.0          # a station card's side (all cards are one size)
    card_min_fill: float = 0.6
    end_station_mm: float = 25.0        # a chain end this near a station ends in it
    default_clip_mm: float = 32.0       # clip length when no River is seen
    clip_width_ratio: float = 9.0 / 32.0
    wire_ratio: float = 1.25 / 32.0
    strip_half_mm: float = 7.5
    clip_cost: float = 1.5              # the counter's price per clip (an extra clip must earn it; D3: 2.0 -> 2.5; R10, with the slack prior: 1.5)
    count_pitch_change: float = 20.0    # log-odds per clip length a gap between clips differs from the one before (0: no slack prior)
    count_card_margin: float = 0.0      # a count with both ends in cards' windows is sure if it resists this change of the price
                                        # (0: off; 8 flagged 29 of 29 exact on dev 4608 but 20 with 1 wrong on held-out
                                        # 2200-2219: table 2215, a path leaving its chain by 20 mm at a station beside a crossing)
    count_card_weakest: float = 1.0     # ... and every clip's two ends sum to this (log-odds)
    end_cap: float = 3.0                # the clip end detector's log-odds are capped at this
    solid_mm: float = 0.0               # wire evidence this wide both ways is a patch (cube, printing), not
                                        # wire; 0 = off (2.5 helped on true centre lines, hurt on traced ones)
    link_wire_reach_mm: float = 50.0    # a link's traced end is carried on by its wire this far (onto its card)
    link_wire_fan_deg: float = 35.0     # headings tried either side of the traced end's
    link_wire_gap_mm: float = 4.0       # across gaps in that wire this long
    link_wire_min: float = 0.3          # wire evidence that is the link's wire
    link_wire_straight_share: float = 0.7   # the straightest heading whose wire runs this share of the longest
    path_to_clips: bool = False         # a link's path runs from its first clip's end to its last's, not
                                        # to the wire seen (dev 4608: ends within 6 mm 12 -> 28%, but
                                        # crossing lists 26.6 -> 24.0%, counts equal: off)
    end_before_mm: float = 16.0         # an end clip may reach this far outside the wire's end seen
    end_after_mm: float = 8.0           # ... or stop this far inside it
    touch_mm: float = 0.5               # footprints closer than this touch
    confident: float = 0.5              # confidence at or above this is "confident"
    cube_side_mm: tuple[float, float] = (7.0, 14.0)
    cube_square: float = 1.4            # a cube's top is square: longest / shortest side at most
    cube_min_area_mm2: float = 45.0     # a cube's visible top, partly covered at most
    cube_white_min_area_mm2: float = 60.0   # white: about a printed box (8 x 7 mm) at least
    print_grow_mm: float = 1.0          # the printing's outline grown by this (blur, misplacement)
    box_row_offset: float = 0.36        # the printed boxes' row: share of the side from the middle
    box_slot_tolerance_mm: float = 4.5  # a white blob this near a box's place is that box
    band_offsets: tuple[float, ...] = (0.17, 0.2, 0.23)   # Starting City band: share of the side from the middle
    band_mix: float = 0.3               # a band sample is at least this much band colour
    band_share: float = 0.4             # share of the band's length in one player colour
    band_share_alone: float = 0.6       # a band this clear makes a Starting City without its art
    band_absent: float = 0.15           # below this share of any colour, the band is white
    band_share_white: float = 0.45       # the same for white, also the colour of the printing
    # stations, Starting Cities, the Metropolis (see vision/railways/stations.py)
    table_window_mm: float = 300.0      # the table's own colour: median over this window
    card_contrast: float = 10.0         # Lab distance by which the table wins near ties
    card_close_mm: float = 5.0          # joins a card's colour across thin printing and wires
    card_open_mm: float = 13.0          # wider than a chain of clips, narrower than a card
    card_thin_open_mm: float = 3.0      # wider than a mat's printed line, narrower than a card's margin
    card_washed: tuple[float, ...] = (0.3, 0.5, 0.7)   # a card under glare: these shares of paper white mixed
                                        # into its colour (linear light) are its colour too, where no card
                                        # was found by its own colour; () = off (Starting Cities: paper white)
    card_washed_print: float = 0.05     # ... if this share of its square is paper white (its printing)
    card_washed_table: float = 0.5      # ... and no more than this share is table
    card_piece: float = 0.12            # a piece of a cut card: at least this share of a card's area
    card_joined_fill: float = 0.45      # two pieces with a chain between fill this much of their card
    card_short_side: float = 0.55       # a card's colour alone may span this share of its side
    art_contrast: float = 15.0          # the card's art is this much darker (Lab L, 0-255)
    metro_quarter_mm: float = 70.0      # centre spacing of the Metropolis board's squares
    board_alike: float = 25.0           # Lab distance within which two board sections are one colour
    metro_fit: float = 0.15             # mean centre-distance error of a 2 x 2 group, share of that
    obstacle_close_mm: float = 11.0     # fills a tile's printed shading and chains across it
    obstacle_open_mm: float = 15.0      # drops thin things of a tile's colour (the River's clips)
    obstacle_min_length_mm: float = 90.0    # the shortest tile side is 100 mm or more
    obstacle_solidity: float = 0.6      # area / hull area of a rectangle or L tile (an L: ~0.75)
    obstacle_contrast: float = 14.0     # tiles whose colour the light moved: this far (Lab, L weighted) from the table
    obstacle_smooth_mm: float = 5.0     # ... colours averaged over this (a dark table's noise)
    obstacle_regrow_mm: float = 25.0    # ... each grown again by its own colour this far round
    obstacle_regrow_close_mm: float = 17.0  # ... closed over chains across it (a black chain blurs wider)
    obstacle_own_tol: float = 16.0      # ... over pixels this near its colour (nearer it than the table)
    obstacle_taken_share: float = 0.15  # ... and lying on cards or tiles found for at most this share
    obstacle_max_length_mm: float = 170.0   # the longest tile side is 150 mm
    obstacle_fit: float = 0.80          # ... covered this well (IoU) by a rectangle or an L
    obstacle_min_arm_mm: float = 25.0   # ... an L's arms and hollow at least this wide
    obstacle_colour_fit: float = 0.65   # tiles of their own colour must be so shaped too, this well (0: off)
    obstacle_fill_share: float = 0.6    # at least this share of a tile's outline is its colour before the fill
                                        # (0: off; dev 2100-2139: 5 of 9 false tiles 0.14-0.52, the 141 true 0.75 up)
    # the River (see vision/railways/river.py)
    river_bridge_mm: float = 80.0       # gaps the River may jump (links crossing it, cubes)
    river_bridge_angle_deg: float = 35.0
    river_min_mm: float = 150.0         # a shorter blue chain is not the River
    river_max_mm: float = 1150.0        # nor a longer one (32 of the longest clips, taut)
    river_piece_mm2: float = 60.0       # smaller blue pieces are not traced on their own
    river_gap_mm: float = 60.0          # the River is followed across gaps this long
    river_hook_mm: float = 20.0         # a traced piece's end may hook this far into a crossing
    river_lateral_mm: float = 3.0       # off the River's own curve by more is something else,
    river_spread: float = 0.15          # plus this much per mm ahead (the curve is a guess)
    river_silver_reach_mm: int = 9      # silver cells this near the River's blue ones are River
    river_wire_reach_mm: float = 90.0   # the River is carried on by its wire alone this far (cards)
    river_wire_fan_deg: float = 35.0    # headings tried either side of the traced end's
    river_wire_gap_mm: float = 5.0      # across gaps in that wire this long
    river_wire_min: float = 0.3         # blue wire evidence that is River wire
    river_card_grow_mm: float = 5.0     # the River is traced no nearer a card than this (its wire is)
    river_centre_mm: float = 6.0        # the path is centred on the River's cells within this much
    river_step_mm: float = 8.0          # the River is followed this far at a time
    river_jump_mm: float = 150.0        # longer gaps jumped, onto traced River pieces only (0: never)
    river_jump_below_clips: float = 16.5  # only while the path is shorter than this many clips
    river_jump_piece_mm: float = 20.0   # a piece jumped onto is this long at least
    river_jump_spread: float = 0.25     # and lies off the path's curve by at most 3 mm + this per mm ahead
    river_jump_times: int = 3           # jumps at each end at most
    river_curve_span_mm: float = 100.0   # the River's curve is fitted over this much of it
    river_max_curve: float = 1.0 / 60.0  # 1 / the tightest radius the River's curve is carried on with
    river_board_depth: float = 1.3      # the River's first clip starts at most this many clips inside the Metropolis
                                        # board's edge (0: off, the seen wire's end is used as for any chain end).
                                        # R22 (session 22) measured it and left it off: with 1.3 (the true River on
                                        # dev 2100-2129: 0.56-1.28 clips in, median 0.69, one 0.03), 4608x2592, River
                                        # exact: dev 2100-2129 9 -> 12 of 30, dev 2130-2139 2 -> 2 of 10, seeds
                                        # 2140-2169 4 -> 7 of 30; links unchanged. On with river_jump_mm (R25,
                                        # session 24): dev 2100-2139 11 -> 14 of 40, 2140-2169 4 -> 7 of 30, no
                                        # River lost on either; the Metropolis end is where 26 of dev's 39 reads stop
    river_board_inside: float = 0.4     # and at least this many standard clips inside it (with river_board_depth)
    river_board_scan_mm: float = 100.0  # the board's edge is looked for this far in from the River path's end
    silver_min: float = 1.0             # a silver clip's score (spreads above the River's median)
    silver_bend_min: float = 0.3        # silver wire running across the River: a silver clip's bend
    clip_agree_mm: float = 1.0          # two measurements of a silver clip this close give the length
    silver_gap_clips: tuple[float, float] = (1.8, 4.0)   # silver 12 to 16: four pitches, in clips
    silver_gap_mm: float = 6.0          # a silver clip's wire may be hidden this long under blue
    silver_evidence_min: float = 0.15   # silver wire evidence that is a silver clip's wire
    silver_wire_mm: float = 0.0         # a silver clip's wire reaches this much past its length (half a wire each end)
    clip_min_mm: float = 26.0           # clip lengths a table may have (brands)
    clip_max_mm: float = 38.0
    extra: dict[str, float] = field(default_factory=dict)
    # C3
    walk_reach_mm: float = 400.0        # a link's end at no station is walked on along its wire this far
    walk_step_mm: float = 4.0           # a step at a time
    walk_look_mm: float = 12.0          # each step looks this far ahead
    walk_turn_deg: float = 20.0         # in headings this far either side of the last
    walk_gap_mm: float = 20.0           # across gaps in the wire this long (a chain over it, a cube)
    walk_min: float = 0.3               # wire evidence that is the link's wire
    walk_arrive_mm: float = 2.0         # the walk has reached a station this near its outline
    walk_cover_mm: float = 6.0          # a chain of the link's colour this near a walked path
    walk_cover_share: float = 0.8       # along this share of it is a piece of that link
    walk_band: bool = True              # where the walk on the wire gives out, the end is walked on its colour band
                                        # (dev 2100-2139 at 4608: found 469 -> 478 of 525, colour+ends 451 -> 459,
                                        # crossings 329 -> 337, exact 369 -> 370)
    pale_white_min: float = 12.0        # a band cell silver wins away from the River is white when white's
    pale_white_share: float = 0.1       # evidence density is at least this (0..255) and this share of silver's
    shared_station_grow_mm: float = 6.0  # two links into one station touch only outside it grown by this
    pale_river_reach_mm: float = 16.0   # but silver cells this near the River's blue stay silver (half a clip)
    # D3
    count_end_inside_mm: float = 30.0   # a link's end clip may end this far inside the wire's seen end
    count_end_slope: float = 0.15       # ... at this cost (log-odds per mm past 1 mm; outside too where bare)
    count_end_outside_mm: float = 20.0  # or start/end this far outside it (a traced path can stop short)
    # D4
    clip_votes_z: float = 2.0           # the chains' detrended best clip length must stand this many robust spreads above the median
    # C4
    ink_floor_factor: float = 1.5       # a chain's ink is at least this many times the bare table's around it
                                        # (dev colour+ends 4608 / 2304: 2.0 gave 70.5 / 51.8%, 1.5 71.0 / 55.0%)
    ink_floor_block_mm: float = 32.0    # the table's own ink is taken in blocks this wide
    ink_floor_percentile: float = 50.0  # as this percentile of the cells off the cards
    band_wide_min_mm2: float = 40.0     # a wide part of the band smaller than this is no chain (a clip's is larger)
    ink_floor_grow_mm: float = 0.0      # within this of ink over the raised cut, the fixed cut holds (dev 4608:
                                        # 4 mm gave counts 32.4 -> 35.8% but crossings 42.9 -> 33.9%, false links back: off)
    evidence_band_factor: float = 4.0   # a player colour's wire density this many times the bare table's is band
    evidence_band_min: float = 8.0      # and at least this (0..255, in colour_window_mm windows)
    evidence_floor_percentile: float = 50.0  # the bare table's density: this percentile of a block's cells
    evidence_floor_block_mm: float = 64.0    # in blocks this wide (a chain's smoothed density fills a quarter)
    evidence_open_mm: float = 9.0       # that band is at least this wide (a clip's width)
    # R5
    end_card_depth: float = 0.6         # a link's end lies inside its station's card at most this share of a clip
                                        # past the card's edge (dev 4608, true ends: 99th percentile 0.595)
    end_card_outside_mm: float = 3.0    # or this far outside it (an end clip meeting the edge aslant touches it
                                        # with a corner)
    strip_centre_passes: int = 1        # a chain's strip is moved onto its seen wire's middle this many times (2: dev exact 339, 1: 342)
    strip_centre_span_mm: float = 20.0  # ... the wire's middle smoothed along the chain over this
    strip_centre_mm: float = 6.0        # ... by at most this much
    end_card_scan_mm: float = 40.0      # the card's edge is looked for this far in from the path's end
    end_card_straight: bool = True      # the strip runs straight into a card from the chain's heading before it
    end_card_keep_mm: float = 30.0      # unless less of the path than this is left outside the card
    # R6
    join_reach_mm: float = 150.0        # two free ends of one colour this near may be one chain through a crossing
                                        # (dev 4608, 100 -> 150 mm: found 80.6 -> 81.0%, exact 278 -> 279)
    join_turn_deg: float = 25.0         # when their headings continue each other within this
    join_lateral_mm: float = 8.0        # each this near the other's heading line (plus half the gap times the turn's sine)
    join_span_mm: float = 25.0          # an end's heading is measured over this much of it
    join_skip_mm: float = 8.0           # behind this much of it (a piece hooks into a crossing)
    join_seen_share: float = 0.8        # the chain's wire, or a chain over it, is seen along this share of the gap
    join_band_reach_mm: float = 2.0     # or within this of the band of chains (any colour: the one over it)
    join_free_mm: float = 4.0           # an end further than this outside every card joins no station yet
    join_card_clear_mm: float = 3.0     # a gap passing this near a card is two links meeting at it, not one
    join_line_deg: float = 10.0         # two ends in line (headings within this, each this near the other's
    join_line_mm: float = 4.0           # heading line) need the chain's evidence along only
    join_line_seen_share: float = 0.5   # this share of the gap
    cross_mid_mm: float = 40.0          # two chains of one colour crossing share at most this much of middle
    cross_turn_deg: float = 25.0        # when their branches continue each other across it within this
    cross_skip_mm: float = 4.0          # a branch's heading is measured behind this much of it
    cross_span_mm: float = 12.0         # over this length
    mix_residual: float = 0.55          # a pixel's difference from the table is a player's wire when it points
                                        # towards the colour within this sine (frame.mixing_evidence): a clip's
                                        # colour comes out more saturated than its reference through the
                                        # camera's tone curve and a warm light (dev 2105's green 0.54 on average;
                                        # 0.45: dev 2100-2169 found 779, exact 474, crossing lists 495)
    river_mix_residual: float = 0.45    # ... and the River's blue and silver (0.55 for them too: dev crossing
                                        # lists 515 -> 495, the River's evidence spread on blue tables)
    # R8
    blind_player_relabel: bool = True   # silver band cells away from the River, where the table has a player's
                                        # colour, are that player's chain (its shading)
    blind_relabel_contrast: float = 50.0    # the table is "of a player's colour" this near it (BGR); 0: the
                                            # wire evidence's blind map (22)
    end_reach_mm: float = 90.0          # a link end at no station is carried straight on into a card this near
                                        # along its heading (0: off); its count is then never confident
                                        # (dev 4608, 60 -> 90 mm: exact 285 -> 287, found 83.6 -> 84.2%)
    end_reach_inside_mm: float = 2.0    # to this far inside the card
    # R11
    unstair_lost: bool = True           # a band blob whose skeleton gave no path is thinned again without the
                                        # staircase corners (short chains between cards; taking them out of
                                        # every blob found more but made false links of textures)
    short_link_card_mm: float = 40.0    # a band path shorter than 12 mm is a chain when each end lies this near a
                                        # card, two different cards (0: off),
    short_link_deg: float = 30.0        # and it heads from the one towards the other within this
    cross_unattached: bool = False      # a link with an end at no station is in other links' crossing lists
    cross_other_colour: bool = False    # a link whose pixels name another colour is in other links' crossing lists
    join_anchored_turn_deg: float = 45.0    # two free ends whose pieces each join a station at their other end may
    join_anchored_reach_mm: float = 200.0   # be joined turning this much, this far apart (0: off)
    # R27l
    chain_hole_mm2: float = 20.0        # holes in a colour's band blob this small are filled before thinning (0: off;
                                        # dev 2100-2139 at 4608: found 463 -> 466 of 525, exact 364 -> 368; 40: the same)
    unstair_short_share: float = 0.5    # a blob whose longest line is shorter than this share of its box's longer
                                        # side is thinned again without the staircase's corners too (0: off; dev
                                        # 2100-2139 at 4608: found 466 -> 469, exact 368 -> 369, colour+ends 447 -> 451)
    # R12
    obstacle_not_board: bool = True     # an obstacle-coloured area holding a read Metropolis square is the board
    station_overlap_mm: float = 2.0     # a card other than a link's ends is in its list when the link's clips (half a
                                        # clip's width either side of its centre line) overlap it by this much: the
                                        # footprint merely brushing it is the path's error (dev 4608: 16 such entries
                                        # on real links, none true; centre line inside (overlap 4.5): as good)

    def mix_residuals(self, colours: Iterable[str] = CLIP_COLOURS) -> dict[str, float]:
        """The wire evidence's residual for each of `colours` (frame.mixing_evidence)."""
        return {c: self.river_mix_residual if c in RIVER_COLOURS else self.mix_residual for c in colours}
