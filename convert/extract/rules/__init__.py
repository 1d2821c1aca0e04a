"""The rules of main-content extraction, as data, apart from the algorithms that use them: a rule
is read and changed here without reading the algorithm. Each module holds one step's rules:

- :mod:`~convert.extract.rules.markup`: the class and id words that mark boilerplate or content,
  the roles and tags of page furniture;
- :mod:`~convert.extract.rules.text`: what a block's text says of it (boilerplate links, labels,
  disclosures, pitches, teasers);
- :mod:`~convert.extract.rules.selection`: choosing the content's container, and how sure that is;
- :mod:`~convert.extract.rules.threads`: a thread's posts and readers' comments;
- :mod:`~convert.extract.rules.cards`: other products' cards on a product page;
- :mod:`~convert.extract.rules.edges`: what opens and ends an article, what follows its end;
- :mod:`~convert.extract.rules.reveal`: content revealed before extraction, a product's facts;
- :mod:`~convert.extract.rules.page_types`: the evidence for a page's type.

The steps read them as ``rules.NAME`` from this package, which holds all but the page types'.
"""

from convert.extract.rules.cards import *  # noqa: F403
from convert.extract.rules.edges import *  # noqa: F403
from convert.extract.rules.markup import *  # noqa: F403
from convert.extract.rules.reveal import *  # noqa: F403
from convert.extract.rules.selection import *  # noqa: F403
from convert.extract.rules.text import *  # noqa: F403
from convert.extract.rules.threads import *  # noqa: F403
