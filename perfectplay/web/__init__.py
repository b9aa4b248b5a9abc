"""The web application of ``perfectplay serve``: the catalogue, solves with live
progress, the strategy explorer and advised play (Starlette, served by uvicorn; an
optional extra: ``pip install 'perfectplay[web]'``)."""
