"""The slide decks: one notebook per lesson segment, their figures (``slides.figures``) and the offline export
(``slides.build``). See slides/README.md."""
