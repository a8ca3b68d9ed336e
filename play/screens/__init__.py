"""The screens: what each shows, region by region — the one list that the first load of a page, the answer to an
action and the live stream all draw from (docs/architecture.md, "one path to every screen").

A screen is the GM's table, a player's page or a character's sheet. Each is a list of regions (`regions.SCREENS`); a
region is one element of the page (its id, its tag), the template that draws what is inside it, what it is drawn from,
and which changes touch it (`drawing.Region`). A page draws every region of its screen in place (`pages`,
`{% region %}`); a change sends each screen only the regions it touched, drawn by the same code, as a run of the same
elements (`drawing.changes`, from the list `regions.SCREENS` registers with it): in the answer to the tab that acted
(`answers`), and to every other screen through the live streams (`streamed`, registered with play.live), which
static/js/screen.js puts in place: inside the element of the same id, or entry by entry for a log, never replacing a
form being typed in. Every region is marked with the campaign version it was drawn at, so that an older drawing never
covers a newer one.
"""
