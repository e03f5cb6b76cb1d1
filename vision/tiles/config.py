"""Every threshold of the tile reader in one place, so a benchmark can vary them and a
test can pin them, instead of magic numbers scattered through the stages."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TilesConfig:
    # -- rectification -----------------------------------------------------------
    coarse_px_per_mm: float = 1.5
    """Grid search resolution: a 1 mm gap between tiles is still 1.5 px wide."""
    crop_px: int = 72
    """Side of each per-cell crop (pixels); the crop spans `crop_span` pitches."""
    crop_span: float = 1.0
    # -- grid --------------------------------------------------------------------
    min_pitch_mm: float = 14.0
    max_pitch_mm: float = 60.0
    corner_window_mm: float = 12.0
    """Window of the structure tensor that tells tiles (edges both ways) from grain."""
    table_smooth_mm: float = 8.0
    table_match: float = 18.0
    table_margin_mm: float = 3.0
    """Grid evidence is taken only within table_margin_mm of what is not bare table
    (within table_match delta E of the commonest colour after a table_smooth_mm median)."""
    table_local_mm: float = 24.0
    table_local_share: float = 0.1
    table_local_match: float = 10.0
    table_grow_rounds: int = 20
    table_line_px: int = 3
    """Where light varies across the table, the table is grown out from its commonest
    colour: a place is table too when it is within table_local_match of the table's
    colour around it (a table_local_mm window at least table_local_share table already),
    for up to table_grow_rounds rounds, after a table_line_px opening and closing has
    taken a mat's printed lines away."""
    table_rim_mm: float = 25.0
    bare_share: float = 0.97
    bare_front: float = 0.5
    """A printed cell whose middle is at least bare_share bare table is no tile when
    the printed cells at most bare_front bare table have another face (by more than
    table_delta_e): fronts share one face. A cell more than bare_front bare whose face
    is within table_delta_e of the bare cells' face (and nearer it than the fronts') is
    no tile either."""
    bare_inset: float = 0.6
    """The middle judged for bare_share is this central part of the cell (side, of the
    pitch): a hand-laid neighbour turned a few degrees, its shadow and a lattice a few
    per cent off reach some 3 mm into a cell (at 0.8, 3 of 49 samples of a mat's cell
    beside a lone tile fell on the tile, 0.94 bare, and the cell read as a front)."""
    print_bare: float = 0.2
    """A face-up cell at least this share bare table (the whole cell) is a print on a
    face of about the table's colour (pipeline._joined_prints): a lone pioneer's print
    cut by a lattice a symbol's width fine leaves 0.33-0.57 of its cells bare."""
    repeat_bare: float = 0.7
    repeat_print: int = 3
    stray_bare: float = 0.9
    """Printed cells at least repeat_bare bare table (their middle, bare_inset) that show
    one print colour on one face at least repeat_print times are a mat's print, not
    tiles; where at least repeat_print fronts off the table outnumber the printed cells
    at least stray_bare bare, those are no tiles either (pipeline._without_repeats). A
    white front on a white table is 0.3-0.7 bare there (its symbol fills the middle)."""
    cut_prints: float = 0.5
    """A lattice on which more than this share of the printed cells hold pieces of one
    connected print (no wider than the largest tile's face) cuts the tiles up: their
    lattice is taken from the whole prints (pipeline._whole_prints)."""
    print_scale: float = 0.5
    """...where a whole print is at least this share of the prints' median extent."""
    varied_prints: int = 3
    """...unless those cells' prints come in at least this many colours (a game's
    fronts, where a mat's ruled lines are one ink)."""
    pitch_candidate: float = 0.1
    """Every autocorrelation peak at least this high (of 2) is a candidate pitch for the
    lattice judge (occupancy.lattice_score)."""
    phase_prints: int = 3
    phase_margin: float = 1.05
    phase_cells: int = 10
    phase_mid: float = 0.2
    phase_pieces: tuple[tuple[float, float], ...] = ((0.0, 4.0), (4.0, 8.0))
    """The judge also rates each candidate lattice refitted to the middles of the pieces
    of print (grid.print_middles), once per (closing mm, least extent mm) here where at
    least phase_prints pieces are found: the pieces as they are (an outlined symbol is
    one; a blurred city's strokes run from symbol to tile edge), and closed into whole
    rims (a filled symbol shows as its rim, broken in glare), the small pieces left
    (tile corners) dropped. A refitted lattice is rated only where at least phase_cells
    of its cells hold a print's middle within phase_mid of a pitch of their own (a few
    tiles beside a cup or a hand give the refit too little to go on: loop game 14), and
    taken only where it rates above phase_margin times the best of the profiles' own."""
    search_below: float = 2.0
    search_steps: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...] = (
        ((), (-0.06, -0.03, 0.03, 0.06)), ((-1.2, -0.6, 0.6, 1.2), ()), ((), (-0.015, 0.015)))
    search_margin: float = 1.1
    """A lattice the judge rates under search_below is searched about (grid._searched):
    each step's turns (degrees) and scales (fractions of the pitch) in turn, from the
    best so far, kept only where the judge rates the result above search_margin times
    the lattice the search began from."""
    more_turns: int = 8
    """A lattice the judge rates under search_below is also sought at the edge
    histogram's turns up to this many (3 always): a mat's lines and the symbols' edges
    can outvote the tiles' own turn."""
    search_starts: int = 3
    """The search begins from this many of the best judged lattices of distinct turn
    or pitch (grid._distinct), and its best is kept above search_margin times the
    best judged."""
    same_turn_rad: float = 0.005
    """Candidate turns closer than this (after refinement) are one turn."""
    judge_sparse_px: float = 10.0
    """A candidate lattice whose cells are at least this many pixels wide in every other
    pixel of the half coarse view is judged on those pixels alone."""
    judge_inner: float = 0.3
    """The judge reads a symbol's contrast over the whole face inside the face ring (an
    outlined symbol leaves the cell's very centre plain)."""
    judge_floor: float = 3.0
    """Least ring spread (delta E) the lattice judge divides a cell's symbol contrast by
    (the noise of a plain face)."""
    line_mm: float = 16.0
    comb_min_mm: float = 4.0
    comb_strength: float = 0.3
    comb_span_mm: float = 150.0
    comb_repeats: int = 4
    """A profile that repeats (autocorrelation >= comb_strength at each of the first
    comb_repeats multiples) at a period between
    comb_min_mm and min_pitch_mm is a print finer than any tile (a mat's ruled lines):
    it is cancelled before the tiles' pitch is sought (grid.decomb)."""
    """Grid profiles count only edges running this far straight (tile outlines)."""
    outline_band_mm: float = 6.0
    outline_turn_deg: float = 12.0
    outline_near_mm: float = 3.0
    outline_shift_mm: float = 10.0
    outline_peak: float = 0.5
    outline_agree: float = 0.06
    outline_min_step: float = 0.01
    """A lone tile's side is measured from its outline: edges within outline_band_mm of
    the symbol's centre lines, turned up to outline_turn_deg from the grid, the pair
    symmetric about a centre within outline_near_mm of the symbol (outline_shift_mm when
    the lattice may have cut the tiles up), the outermost pair at least
    outline_peak of the strongest (see grid.tile_outline)."""
    gap_mm: float = 1.5
    """Gap between hand-laid tiles assumed when the tiles are too few to measure it:
    the pitch of a lone tile is its side plus this."""
    centre_sd_mm: float = 1.5
    outline_sd_mm: float = 1.0
    """How far a tile's centre strays from its cell (a hand's jitter plus the symbol's
    centroid), and how far side + gap_mm strays from the pitch: they weigh the
    centres' pitch against the outlines' on a sparse table."""
    outline_fill: float = 0.6
    """A tile's outline holds no bare table: at least this share of its middle is off
    the table's colour (else it is a square of a mat's print or around several tiles)."""
    outline_apart: float = 0.85
    """Two tiles' outlines are at least this many sides apart (centre to centre): a
    hand's jitter moves each a little, but tiles do not overlap."""
    outline_tiles: int = 12
    """A first read with at most this many face-up "tiles" has their outlines measured
    (a lattice at half the pitch cuts one tile into four)."""
    sparse_tiles: int = 6
    """At most this many face-up tiles: the lattice is checked against their outlines."""
    print_extent_trim: float = 0.02
    """A connected print's extent is taken between these quantiles of its pixels (a
    tile's shadowed corners may join a print on a face of the table's colour)."""
    blob_margin_mm: float = 2.0
    blob_agree: float = 0.15
    blob_fill: float = 0.5
    blob_cells: int = 3
    blob_keep_pitch: float = 0.15
    blob_keep_angle: float = 0.07
    blob_offset: float = 0.2
    blob_cell_fill: float = 0.5
    blob_outline_agree: float = 0.15
    """A small city shows as one patch off the table's colour (grid.table_near): its
    smallest rectangle is a x b cells (each at most blob_cells) of one pitch, the patch
    some blob_margin_mm wider than a x b pitches (a tile's shadow and the table mask's
    edge); the pitches along both sides agree within blob_agree, the patch fills at
    least blob_fill of the rectangle. The searched lattice is kept while its symbols sit
    in their cells and it lies within blob_keep_pitch (share of the pitch) and
    blob_keep_angle (radians) of the patch's. A split is taken only where the tiles
    agree (pipeline._blob_choice): every symbol off the bare table within blob_offset pitches
    of its cell's middle, every cell whose middle half the patch fills at least
    blob_cell_fill of holding a tile, and no more tiles without a square outline of
    side + gap_mm within blob_outline_agree of the pitch than tiles with one."""
    edge_percentile: float = 80.0
    """Only gradients above this percentile vote for the grid orientation."""
    hint_offset: float = 0.12
    """A previous reading's lattice is kept while the symbols sit within this many
    pitches (median) of their cell centres."""
    hint_city: int = 3
    """A previous reading's lattice is kept for a city group of at least this many prints
    sitting in their cells, however many prints lie apart from it (a cup's rim, a hand)."""
    reread_pitch: float = 0.01
    reread_angle: float = 0.01
    reread_shift: float = 0.1
    """The cells are read again on a refitted lattice only when its pitch moved by this
    fraction, its turn by this many radians or (on a city of more than outline_tiles,
    whose few tiles' lattice comes from their outlines) its crossings by reread_shift
    pitches (else the first read's tiles stand)."""
    refits: int = 3
    """At most this many lattice refits on tile centres (stops once it stops moving)."""
    refit_turn_deg: float = 20.0
    """On the game's own lattice (the loop's hint), a refit that turns it more than this
    many degrees took diagonal neighbours for side ones, and is made again taking them
    for diagonals (pipeline.refit_to_tiles)."""
    mid_cell: float = 0.15
    """A refit leaves diagonal neighbours out only where every tile centre lies within
    this many pitches of its cell's middle on the lattice read (the box's tiles sit
    within 2 mm of it; a lattice they cross is not yet theirs)."""
    # -- occupancy ---------------------------------------------------------------
    back_outline: float = 0.35
    """A face-down tile's free sides need a straight step at least this fraction of the
    face-up tiles' typical one (a back of the table's colour still has a cut edge)."""
    back_step_floor: float = 6.0
    """Least straight step (delta E) on a face-down tile's free side."""
    outline_along: float = 0.3
    """The step is averaged over this many pitches either side of a side's middle."""
    outline_across: float = 0.2
    """...and searched this many pitches either side of the lattice line."""
    table_delta_e: float = 12.0
    """A blank face at least this far from the bare table's colour is a tile."""
    centre_fraction: float = 0.22
    """The centre region (Chebyshev half-size, pitches) where a symbol is looked for."""
    min_centre_contrast: float = 10.0
    """Coarse pass: mean delta E of the centre against the ring that means a symbol."""
    centre_floor: float = 5.0
    centre_noise: float = 3.0
    """...and so does a centre at least centre_noise times the median centre contrast of
    the other cells (the bare table's), never under centre_floor, on the face the clearly
    printed cells share (within table_delta_e / 2): an outlined symbol leaves the centre
    nearly plain (6.5-10 delta E on white tiles on a pale table whose bare cells show
    0.8-2.5; dev seeds 7568, 7569 lost 9 such tiles), a lamp's glare on a bare table
    (dev seed 7342) has a soft bright centre but not the fronts' face."""
    beside_clear: int = 6
    """With at most this many cells of clear print, the last read takes their side
    neighbours as candidates too (_read_cells)."""
    plain_spread: float = 8.0
    """Coarse pass: a ring this uniform (RMS delta E) can be a tile's plain back (a dim
    frame's noise or a textured back's print spreads a plain back's ring to some 7; at
    6, 11 of 181 backs of dev seeds 7300-7399 were never looked at; at 10 a noisy patch
    of felt or wood beside the city passed for a back)."""
    back_spread: float = 16.0
    """...and a ring up to this spread is a back where another cell far from the table
    is within table_delta_e / 2 of its colour (occupancy.spread_backs, the last read
    only): a back's own print spread CI city 203's two backs to 9 and city 201's to
    9.4, and on a lattice 0.06 mm finer (the judge's refit) 201's corner back to 15.1."""
    hue_back_de: float = 8.0
    """The last read also looks at plain cells whose colour (a*b* alone) lies at least
    this far from the table's, and hue_back_scatter times the bare cells' own a*b*
    scatter, where another such cell shares their colour (occupancy.hue_backs): a lamp's
    falloff or glare moves a table's lightness, not its hue, and a back of another hue
    but the table's lightness was never looked at (cities 5083 and 5092: backs 11-13
    delta E off a mat whose lightness varied by 3.5-4.6)."""
    hue_back_scatter: float = 2.5
    """See hue_back_de."""
    # -- symbol ------------------------------------------------------------------
    face_ring: tuple[float, float] = (0.30, 0.40)
    """Where the tile face is sampled (fractions of the pitch from the cell centre)."""
    symbol_min_area: float = 0.015
    """A symbol smaller than this fraction of the tile face means a blank face."""
    symbol_min_core: float = 0.04
    """What is left of a symbol in the centre of the cell (the parts reaching it) must
    cover this fraction of the face: a printed symbol is large, a line crossing of a
    cutting mat or a knot in wood is not."""
    symbol_rim: float = 0.03
    symbol_thin: float = 0.2
    """A print covering less than symbol_thin of the face and reaching within symbol_rim
    pitches of the face ring's outer edge on all four sides runs out of the cell: a
    cutting mat's grid, not a symbol (real tiles' big symbols reach the edges too)."""
    symbol_min_de: float = 12.0
    """Least delta E between symbol and face (print on a tile is never subtler)."""
    faint_symbol_de: float = 5.0
    """A second look at this contrast, for a tile whose face is the fronts' face colour
    but shows no print at symbol_min_de (a pale symbol under a lamp's glare)."""
    faint_alone_step: float = 7.0
    """With no clear print on the table, a tile whose print shows only at
    faint_symbol_de is a front when every free side shows a straight cut edge this
    sharp (delta E): a lone pioneer in a lamp's glare keeps only a faint print, and a
    back alone on the table is never taken for a tile."""
    glare_over_share: float = 0.02
    """A cell crop with more than this share of its values over paper white's ceiling
    (1 after normalisation) lies in a lamp's spot brighter than the markers' white: a
    tile there whose clipped crop shows no print has it read off the crop scaled to fit
    (crops.glared_crops; 0 turns this off)."""
    glare_knee: float = 0.95
    """The coarse view of the table is bent smoothly under 1 above this (paper white
    normalises to 0.92) instead of clipped: in a lamp's spot brighter than the markers'
    white a clipped view shows a pale tile and the bare table alike, flat white."""
    pale_noise: float = 2.0
    """A blank face's last look (CellLook.pale) takes a print this many times the face's
    noise (ring spread) above it, against three times for a print that makes a tile: it
    only turns a blank tile with the fronts' face up (a thin outline blurred into noise)."""
    shape_angles: int = 64
    shape_radii: int = 16
    shape_span: float = 0.42
    """The polar descriptor reaches shape_span pitches from the symbol's centroid."""
    shape_shift: int = 2
    """Angle steps (of 360/shape_angles deg) two tiles may be turned apart."""
    # -- grouping ----------------------------------------------------------------
    shape_merge: float = 0.10
    """Average-linkage distance below which two shape groups are one shape."""
    colour_merge: float = 14.0
    """Average-linkage distance (CIELAB delta E) below which two colour groups merge."""
    shape_window: tuple[float, float] | None = (0.7, 1.5)
    colour_window: tuple[float, float] | None = (0.7, 2.0)
    """The shape and colour groups are cut in the widest empty stretch of merge
    distances between these factors of shape_merge / colour_merge (None: at them), so
    the cut lies where no pair of groups is near it and a lamp's change moves none
    across it. A game's colours lie some 30 delta E apart or more, its shapes some 0.15."""
    shape_hesitate: float = 1.5
    colour_hesitate: float = 1.5
    """A tile whose nearest other shape (colour) group lies less than this many times
    as far as its own group (average distances) lists that group as a candidate
    (`candidates` in the observation): below it most wrong groupings lie and few right
    ones, and the runner-up is then the truth about 9 times in 10."""
    shape_alone: float = 0.7
    colour_alone: float = 0.65
    """A tile whose average distance to the rest of its group is more than this share
    of the grouping's cut lists "a group of its own" as a candidate: a tile of a shape
    or colour the table shows nowhere else, grouped with the nearest tiles."""
    pair_move_most: float = 1.0
    """Where the box holds each (shape, colour) a known number of times (Town 77: once),
    a tile read alike in both with another is moved to another group only when that
    group lies at most this share of the grouping's cut farther than its own
    (group.one_of_each). On dev cities 6000-6099 (shape / colour pairs right of 34592,
    without the mend 32615 / 32538): 0.25 gives 32623 / 32612, 0.5 32687 / 32647, 0.75
    32689 / 32677, 1.0 32694 / 32696, 1.5 32695 / 32697."""
    shape_single: float | None = 1.45
    colour_single: float | None = 1.75
    """A tile alone in its shape (colour) group lists the nearest other group as a
    candidate when that group lies less than this many cuts away on average (None:
    never). On dev games 7000-7039 read frame by frame (379 placements), of the new
    tiles alone in a group with another of their true shape (colour) somewhere, 7 of 16
    (10 of 17) had it as the nearest group under these cuts (colour at 1.45: 7); a
    nearest group holding a tile of its line (the candidate changes the verdict) lay
    under them 10 times by shape (16 under 1.5) and 9 by colour (5 under 1.45)."""
    shape_apart: float | None = 0.7
    colour_apart: float | None = 0.65
    """A tile lying more than this many cuts from any one tile of its shape (colour)
    group lists "a group of its own" too (None: only by its mean, shape_alone). Read
    alone on dev games 7000-7079 (758 placement frames), 15 legal new tiles were grouped
    with a tile of their line not truly alike and listed nothing (a false alert unless
    the loop asks; most of the colour ones on a lattice the reader misnumbered, where
    the line is not the true one); these margins list it for 4 by shape and 1 by
    colour, and for 3 and 1 of the 110 truly alike that listed nothing (asked instead
    of alerted); at 0.6 and 0.6 they list 5 and 3 false, 11 and 1 true."""
    alone_most: int | None = None
    """"A group of its own" is offered only in groups of at most this many tiles (None:
    in any). 3 (T22's suggestion) gave the same alerts, false alerts and questions as None
    on dev games 7000-7059, chunk for chunk, so it is left off."""
    facedown_delta_e: float = 18.0
    """Faces (or, when the colour is on the face, prints) this close (average linkage)
    are one look when the fronts' look is sought."""
    facedown_vary: float = 3.0
    facedown_near_de: float = 12.0
    facedown_far_de: float = 25.0
    """A tile whose constant part (face, or print when the colour is on the face) lies
    more than facedown_vary times the fronts' own variation (90th percentile distance
    from their median) from the fronts' is a back, but always beyond facedown_far_de and
    never within facedown_near_de: fronts printed alike (a pale logo on backs 15 off
    white prints) call for a tight bound, fronts a lamp's glare lifts unevenly (dark
    glossy faces) for a loose one."""
    dark_fronts: int = 4
    """The face ring's darker part (face.face_dark) is weighed in the face-down call only
    against at least this many fronts alike: with two or three, which look is the
    fronts' is itself in doubt (loop game 33: two orange fronts and a blue one on a blue
    mat, the blue one taken for a back on some looks and rescued on others)."""
    dark_mid: float = 0.2
    """The face ring's darker part is weighed only for a tile whose print lies within this
    many pitches of its cell's middle: a print off it may be a neighbour's, reaching into
    the cell, and that neighbour's dark ink the ring's darker part (a sparse city's cell
    beside a black tile, 0.24 pitch off, taken for a sixth front)."""
    glare_l_weight: float = 0.4
    """Weight of lightness when faces are compared for the face-down call: a lamp's
    glare lifts a glossy dark face by tens of L but leaves its hue."""
    two_faces_apart_de: float = 36.0
    """Two printed tiles alone (a game's first two) whose faces lie further apart than
    this (lightness weighted by glare_l_weight) while their prints agree carry their
    colour on the face: twice facedown_delta_e, beyond what glare does to one face."""
    two_faces_hue_de: float = 20.0
    """... or whose faces lie this far apart in a*b* alone: glare lifts a face's lightness
    and pales it a little, so two neutral faces of one print-coloured set stay within a
    few units (a grey and a cyan face are 28 apart)."""
    face_split_separation: float = 3.0
    """A face ring splits into two colours only when they lie this many times their own
    (robust) spread apart: noise alone splits one colour in two halves some 2.3 spreads
    apart."""
    colour_smooth_px: float = 2.0
    """Gaussian sigma (crop pixels) of the crop the print's colour is read from (a few
    camera pixels: noise and a JPEG's shared 2x2 colour average out)."""
    shape_smooth_px: float = 1.0
    """Gaussian sigma (crop pixels) of the print's share map the shape is read from."""
    face_surround: float = 0.15
    """A ring colour holds a side of the face ring when it covers this share of it; the
    outer colour, if it is the bare table's, is not the face when it misses a side and
    the inner colour holds all four (face.face_colour)."""
    face_table_reach: float = 2.0
    face_table_ratio: float = 0.5
    """The face ring's outer colour is the bare table's (face.face_colour's side test)
    within table_delta_e of it, or within face_table_reach times that and
    face_table_ratio times as far from it as the inner colour (a ring's dark felt mixed
    with a dark print lies some 19 delta E off; a white face 40 off a yellow table is no
    table)."""
    face_majority: float = 0.15
    """A ring colour covering more than half + this share of the face ring is the face
    (a printed border line or a neighbour's edge is thin)."""
    # -- piles beside a city (vision.tiles.piles; the Town 77 solo Challenge only) ---
    pile_least: float = 0.6
    """A patch off the table counts as an object from (pile_least * min_pitch_mm) squared."""
    pile_fill: float = 0.55
    pile_scrap: float = 0.4
    """Only patches filling pile_fill of their smallest rectangle count (not a lamp
    spot's rim, nor a pile's side seen edge on), and of those only patches of at least
    pile_scrap of a tile's area (not a scrap of a top a spot cut off)."""
    pile_join: float = 0.25
    """Patches within pile_join of a tile's side of each other are one object (a lamp's
    spot splits a pile's top from its sides; piles stand pitches apart)."""
    pile_band: float = 0.75
    """The pile tops: the lowest patches along the tiles' rows, their middles within
    pile_band of a tile's side of the lowest one's."""
    pile_row_turn: float = 20.0
    """Where no band lies along the patches' median turn, rows turned up to this many
    degrees off it (through two patches) are tried (a pile's patch is a poor square)."""
    pile_tall: float = 1.5
    pile_tall_alike: float = 1.3
    """A pile's patch (its top and the sides of a tall pile) may be up to pile_tall times
    max_pitch_mm on its shorter side; patches wider than max_pitch_mm are the piles only as
    the full count, the widest within pile_tall_alike of the narrowest."""
    pile_spot_share: float = 0.6
    """More patches in that band than piles stand for the piles when those over the count
    each cover less than pile_spot_share of the piles' median area (a lamp's spot)."""
    pile_lone_square: float = 1.35
    pile_lone_scrap: float = 0.25
    """A lone pioneer beside the piles (piles.lone_tile): the only patch off the table
    whose smallest rectangle is within pile_lone_square of a square, every other patch
    under pile_lone_scrap of its area."""
    pile_most_area: float = 3.0
    pile_least_side: float = 0.6
    """Each pile's patch (its top, its sides and shadow) covers at most pile_most_area
    tiles' areas and is at least pile_least_side of a tile wide (the lowest patch's
    shorter side sets the tile's size)."""
    pile_gap: float = 0.3
    """The piles lie an empty row below the city: at least pile_gap of a tile's side
    between the band and everything above it (a tall pile leans its top towards it)."""
    pile_clear_share: float = 0.5
    """Of the prints a pile's own read finds, those at least pile_clear_share as clear
    (CellLook.contrast) as the clearest may be its top's: the one lying furthest out
    from the play area's middle is (the camera looks down on about there, so a pile's
    top shows further out than its sides)."""
    pile_margin: float = 0.35
    pile_base: float = 0.4
    pile_ring_mm: float = 4.0
    pile_paint_de: float = 40.0
    """A pile top is read alone on its patch's box grown by pile_margin of its side (by a
    whole side past the play area's edge, and by pile_base of it towards the area's
    middle, where the pile's base lies); the city is read with that box painted over by
    the table round it, blurred in at pile_ring_mm, leaving out pixels pile_paint_de
    (8-bit units) off the ring's median (a marker, the pile's base)."""
    pile_outline_px: float = 4.0
    pile_side_agree: float = 0.2
    pile_first_agree: float = 0.35
    """Each top is read on a cell centred on its own outline (on a view of
    pile_outline_px per mm, so a top beyond the play area's edge has one too), the
    outline's side within pile_side_agree of the city's lattice's; before the pioneer,
    within pile_first_agree of its pile's patch's side, the cells then as wide as the
    outlines' median side."""
    pile_pitch_agree: float = 0.15
    """The city read with the piles painted out is taken unless its lattice's pitch lies
    more than pile_pitch_agree off the tops' outlines' side plus gap_mm while the
    whole frame's lies within it."""
    pile_pitch_least: float = 0.55
    """A city lattice finer than this share of the piles' patches' side is no tile's (a
    mat's squares): the whole frame's is then taken where it lies nearer the tops' size."""
    pile_close_mm: float = 14.0
    """Where the band search finds fewer piles than there are and the game knows no
    earlier band, it is made again on the patches off the table closed over this width
    (a top of about the table's colour shows as a ring of print and pile side) and
    taken when it finds them all."""
    pile_lean: float = 0.5
    """A pile top read alone lies at most pile_lean of its patch's side past the play
    area's edge (a tall pile's top leans out some 15 mm; beyond lie the markers and
    the table's edge)."""
    pile_scales: tuple[float, ...] = (1.0, 1.03, 1.06, 1.09, 1.12)
    """The factors the tops' cells may be wider than the city's pitch by (a tall pile's
    top looks larger): the one at which the tops' shapes lie nearest the city's is taken."""
